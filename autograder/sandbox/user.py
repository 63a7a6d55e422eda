"""Who a check's child runs as.

Run as root (Gradescope, CI containers), the grader gives every running check a uid of its own from course.yml's
``limits.sandbox_uids``: the process limit then counts that check's processes only (it never binds root), the child
cannot write the grader's files, and when the check ends every process of that uid is killed, including any that
left the child's process group. Run as an ordinary user, the child keeps the grader's uid: there is nobody to drop to.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import warnings
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no uids to drop to, so no lease to hold (``Lease``)
    fcntl = None

_held: set[int] = set()
_held_lock = threading.Lock()

# Run as the leased uid: kill(-1) sends SIGKILL, in one pass, to every process that uid may signal, which is its own.
# Its return value counts the processes it was refused too, so it cannot say whether any were left; nothing to loop on.
_KILL_ALL = "import os; os.kill(-1, 9)"


_probe_lock = threading.Lock()
_python_runs: dict[str, bool] = {}  # per interpreter, probed once per grader process


def _python_runs_as(uid: int) -> bool:
    """Whether ``uid`` can run this Python: an interpreter under a folder closed to others, such as root's home,
    cannot be. Probed as a uid the caller holds, so no other check's cleanup can kill the probe. Said once if not."""
    with _probe_lock:
        if sys.executable not in _python_runs:
            try:
                probe = subprocess.run([sys.executable, "-c", "import numpy"], user=uid, group=uid, extra_groups=[],
                                       env={}, cwd="/", capture_output=True, text=True, check=False, timeout=60)
                reason = "" if probe.returncode == 0 else \
                    (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
            except OSError as exc:  # the interpreter itself cannot be reached by that uid
                reason = str(exc)
            if reason:  # a warning, not a print: notebooks silence warnings; nbgrader zeroes a cell writing stderr
                warnings.warn(f"running as root, but uid {uid} cannot run {sys.executable} ({reason}); student code "
                              "will run as root, without a process limit. Install Python where other users can read "
                              "it.", RuntimeWarning, stacklevel=3)
            _python_runs[sys.executable] = not reason
        return _python_runs[sys.executable]


def children_kept_root() -> bool:
    """Whether this grader, running as root, found that the sandbox uids cannot run its Python, so that its checks'
    children ran as root: what the score table's title must then say."""
    with _probe_lock:
        return os.geteuid() == 0 and _python_runs.get(sys.executable) is False


def dropping(uids: tuple[int, int]) -> bool:
    """Whether children are dropped to a uid of their own here: only root can, and only with a Python they can run."""
    lease = Lease(uids)
    try:
        return lease.uid is not None
    finally:
        lease.release()


def _lock_folder() -> Path:
    """Where leases are held across grader processes: root's own folder, so a sandboxed uid cannot hold a lease."""
    # one place for every grader on the host, whatever its TMPDIR: two graders must see each other's leases
    folder = Path("/tmp/autograder-sandbox-uids")
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        raise RuntimeError(f"{folder} must be a folder owned by root and closed to others; remove it and retry")
    return folder


class Lease:
    """One uid, held by this check until ``release``; ``uid`` is None when children keep the grader's uid (it is not
    root, the sandbox uids cannot run this Python, or there are no uids to drop to, as on Windows)."""

    def __init__(self, uids: tuple[int, int]):
        self.uid, self._fd = None, None
        if fcntl is None or os.geteuid() != 0:
            return
        folder = _lock_folder()
        for uid in range(uids[0], uids[1] + 1):
            with _held_lock:
                if uid in _held:
                    continue
                _held.add(uid)
            fd = os.open(folder / str(uid), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another grader process holds it
                os.close(fd)
                with _held_lock:
                    _held.discard(uid)
                continue
            self.uid, self._fd = uid, fd
            kill_all(uid)  # whatever an earlier, interrupted run may have left behind
            if not _python_runs_as(uid):
                self.release()
            return
        raise RuntimeError(f"every sandbox uid in {uids[0]}..{uids[1]} is in use; widen course.yml's "
                           "limits.sandbox_uids")

    def release(self) -> None:
        if self.uid is None:
            return
        kill_all(self.uid)
        os.close(self._fd)
        with _held_lock:
            _held.discard(self.uid)
        self.uid = None


def kill_all(uid: int) -> None:
    """Kill every process owned by ``uid``, from a short-lived process running as that uid (kill(-1) reaches
    exactly the processes a uid may signal: its own). Skipped when /proc shows none: nothing can start from nothing."""
    if tasks_of(uid) == 0:
        return
    try:
        subprocess.run([sys.executable, "-S", "-c", _KILL_ALL], user=uid, group=uid, extra_groups=[], env={},
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/",
                       check=False, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:  # cleaning up is best effort, never the end of grading
        warnings.warn(f"could not end the processes of sandbox uid {uid} ({exc})", RuntimeWarning, stacklevel=2)


def switch_to(uid: int) -> None:
    """In the child, before exec: no supplementary groups, then the group, then the user (in that order, since
    only root may change groups)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def tasks_of(uid: int) -> int | None:
    """Processes and threads ``uid`` runs now (what the kernel's process limit counts); None without /proc."""
    if not os.path.isdir("/proc/self"):
        return None
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            count += int(fields.get("Threads", "1"))
    return count
