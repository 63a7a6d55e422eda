"""A check's budget for memory, processes and disk, over every process it starts.

The rlimits of ``limits`` bind one process each: seven processes of one check held 4,970 MB under a 1,024 MB limit,
sixty files of 64 MB each passed a 64 MB limit, and a child left running as root (no uid of its own) was bound by no
process limit at all. So where the grader runs as root and the kernel lets it make cgroups with the memory and pids
controllers (cgroup v2, or v1's memory and pids hierarchies), each check's child starts inside a cgroup of its own,
nested in the grader's: ``memory_mb`` bounds the memory of all its processes together (swap and tmpfs pages included),
``processes`` all its processes and threads whatever uid they run as, and when the check ends every process still in
the group is killed. The check's home, the one folder of the host it may write, is a tmpfs of ``disk_mb`` that the
grader mounts before the child starts and unmounts after; its pages count against the memory budget as well.
(Under bubblewrap the child's /tmp and /dev/shm are tmpfs mounts of the jail, counted the same way.)

Where that cannot be done (not root; cgroups mounted read-only, as in many containers) ``missing`` says what is not
enforced, and the grader says it once: the per-process limits are then all there is.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import itertools
import os
import signal
import time
import uuid
import warnings
from pathlib import Path

from autograder.config import Limits

CGROUP = Path("/sys/fs/cgroup")
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2
_libc = ctypes.CDLL(None, use_errno=True)
_names = itertools.count()
_run = uuid.uuid4().hex[:8]
LEAF = "autograder-grader"  # cgroup v2: the group the grader's own processes move to (``_delegate``)


def _own_path(controller: str) -> str | None:
    """The grader's own cgroup in ``controller``'s hierarchy ("" for cgroup v2's), from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if names.split(",") == [controller] or (controller == "" and names == ""):
            return path.lstrip("/")
    return None


def _bases() -> dict[str, Path] | str:
    """Where this process may make check groups: {"memory": folder, "pids": folder} (v1), {"": folder} (v2), or
    why it may not."""
    if os.geteuid() != 0:
        return "the grader is not root"
    v1 = {name: CGROUP / name / path for name in ("memory", "pids")
          if (path := _own_path(name)) is not None and (CGROUP / name / "cgroup.procs").exists()}
    if len(v1) == 2:
        return v1
    own = _own_path("")
    if own is not None and (CGROUP / "cgroup.controllers").exists():
        base = CGROUP / own
        why = _delegate(base)
        return why or {"": base}
    return "no cgroup hierarchy with the memory and pids controllers"


def _kernel_write(path: Path, value: str) -> None:
    """A write to a cgroup file (the tests' simulated tree replaces it)."""
    path.write_text(value)


def _delegate(base: Path) -> str | None:
    """Hand cgroup v2's memory and pids controllers to the children of ``base``; why not, or None when done.

    By the kernel's rule a group that holds processes cannot enable controllers for its children, and the grader
    sits in ``base`` (in a container, with its siblings): every process of ``base`` moves first into a leaf group of
    its own (``LEAF``), still under every limit above ``base``, and the checks' groups are made beside it."""
    control = base / "cgroup.subtree_control"
    try:
        if {"memory", "pids"} <= set(control.read_text().split()):
            return None
        try:
            _kernel_write(control, "+memory +pids")
            return None
        except OSError as exc:
            if exc.errno != errno.EBUSY:  # EBUSY: processes in ``base``; anything else is final
                raise
        leaf = base / LEAF
        leaf.mkdir(exist_ok=True)
        for pid in (base / "cgroup.procs").read_text().split():
            try:
                _kernel_write(leaf / "cgroup.procs", pid)
            except ProcessLookupError:  # it ended meanwhile
                pass
        _kernel_write(control, "+memory +pids")
        return None
    except OSError as exc:
        return f"cgroup v2's memory and pids controllers cannot be delegated below {base} ({exc.strerror})"


@functools.cache
def _usable() -> dict[str, Path] | str:
    """``_bases``, once a group has been made and removed there."""
    bases = _bases()
    if isinstance(bases, str):
        return bases
    try:
        probe = [base / f"autograder-probe-{uuid.uuid4().hex}" for base in bases.values()]  # threads may race here
        for folder in probe:
            folder.mkdir()
        for folder in probe:
            folder.rmdir()
    except OSError as exc:
        return f"cgroups cannot be made here ({exc.strerror})"
    return bases


def _write(path: Path, value: str, required: bool = True) -> None:
    try:
        path.write_text(value)
    except OSError:
        if required:
            raise


class CheckGroup:
    """One check's cgroup(s) and home tmpfs. ``join`` are the files the child writes its pid to before exec;
    ``missing`` what is not enforced (empty when all is)."""

    def __init__(self, limits: Limits):
        self.limits, self.groups, self.join, self.home, self.missing = limits, [], [], None, []
        bases = _usable()
        if isinstance(bases, str):
            self.missing = [f"memory, processes and disk per check ({bases}): memory_mb binds each process alone, "
                            "output_mb each file alone, processes each uid"]
            return
        name = f"autograder-{_run}-{next(_names)}"
        memory = str(limits.memory_mb * 2**20)
        try:
            for controller, base in bases.items():
                group = base / name
                group.mkdir()
                self.groups.append(group)
                if controller in ("memory", ""):
                    _write(group / ("memory.max" if controller == "" else "memory.limit_in_bytes"), memory)
                    _write(group / "memory.swap.max", "0", required=False)  # v2; v1 below
                    _write(group / "memory.memsw.limit_in_bytes", memory, required=False)
                    _write(group / "memory.oom.group", "1", required=False)  # v2: an OOM ends the whole check
                if controller in ("pids", ""):
                    _write(group / "pids.max", str(limits.processes))
                self.join.append(str(group / "cgroup.procs"))
        except OSError as exc:
            self.close()
            self.missing = [f"memory and processes per check (a cgroup could not be made: {exc.strerror})"]

    def mount_home(self, home: Path, uid: int | None) -> None:
        """A tmpfs of ``disk_mb`` on ``home``, owned by ``uid`` (root when None); said missing where it cannot be."""
        if os.geteuid() != 0:
            self.missing.append("disk per check (the grader is not root): output_mb binds each file alone")
            return
        owner = 0 if uid is None else uid
        options = f"size={self.limits.disk_mb}m,mode=0700,uid={owner},gid={owner}".encode()
        if _libc.mount(b"tmpfs", str(home).encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
            self.missing.append(f"disk per check (a tmpfs could not be mounted: {os.strerror(ctypes.get_errno())})")
            return
        self.home = home

    def disk_full(self) -> bool:
        """Whether the check filled its home (less than a page left): its own result may then be cut short."""
        if self.home is None:
            return False
        try:
            info = os.statvfs(self.home)
        except OSError:
            return False
        return info.f_bavail * info.f_frsize < 2 * 4096

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the check for going over ``memory_mb``."""
        for group in self.groups:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    fields = dict(line.split() for line in (group / name).read_text().splitlines())
                except (OSError, ValueError):
                    continue
                if int(fields.get("oom_kill", 0)) > 0:
                    return True
        return False

    def peak_mb(self) -> float | None:
        for group in self.groups:
            for name in ("memory.peak", "memory.max_usage_in_bytes"):
                try:
                    return int((group / name).read_text()) / 2**20
                except (OSError, ValueError):
                    continue
        return None

    def kill(self) -> None:
        """SIGKILL every process of the check, until none is left (a fork racing the kill is bound by pids.max)."""
        for group in self.groups:
            _write(group / "cgroup.kill", "1", required=False)  # v2, Linux 5.14 and later: all at once
        for _ in range(200):
            pids = set()
            for group in self.groups:
                try:
                    pids |= {int(p) for p in (group / "cgroup.procs").read_text().split()}
                except OSError:
                    continue
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def close(self) -> None:
        """Kill what is left, unmount the home and remove the groups (a group that will not go is left, empty)."""
        self.kill()
        if self.home is not None:
            _libc.umount2(str(self.home).encode(), MNT_DETACH)
            self.home = None
        for group in self.groups:
            for _ in range(50):
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.groups, self.join = [], []


@functools.cache
def say_once(missing: tuple[str, ...]) -> None:
    """A warning, once per grader process, of what the budget cannot enforce here."""
    warnings.warn("not enforced here: " + "; ".join(missing) + " (see docs/security.md)",
                  RuntimeWarning, stacklevel=3)
