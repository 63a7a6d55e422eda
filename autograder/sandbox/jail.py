"""Bubblewrap: the child sees only what its check needs, in namespaces of its own.

Each check's child runs under ``bwrap`` in fresh user, mount, pid, ipc, uts, cgroup and network namespaces. Its
file system is built from nothing: the system's libraries and the Python installation read-only, the staged runtime
(no oracle), the staged copy of the submission and the check's request read-only, its home (the only place it may
write, besides a small private /tmp and /dev/shm) and, for a check that has one, the input file the grader made for
it. Paths keep their names, so the request needs no translation. The network namespace has no device but a loopback
that is down, and holds the abstract Unix sockets too, so nothing on the host can be reached. When the child ends
(or the grader kills bubblewrap) the pid namespace ends with it, taking every process the check started, and its
tmpfs mounts are gone.

Where bubblewrap is missing or cannot make namespaces (some containers), the grader falls back to the uid drop alone
(``user``) and says so once; ``limits.isolation: bubblewrap`` makes that an error instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

from autograder import paths
from autograder.config import CourseError
from autograder.sandbox import user

# Killed by signal N inside the sandbox, the child makes bubblewrap exit with 128 + N.
SIGNAL_BASE = 128
TMPFS_BYTES = 64 * 2**20


class Unavailable(CourseError):
    """bubblewrap cannot isolate children here though course.yml asks for it; the message says why."""


class Unisolated(CourseError):
    """Private material (grading seeds, the course secret) would reach a child that nothing isolates."""


def check_isolation(course, seed_set: str) -> None:
    """Before grading: bubblewrap must run where course.yml requires it, and grading with the instructor's private
    material needs bubblewrap or the uid drop, unless the instructor said ``--insecure`` (``AUTOGRADER_INSECURE=1``):
    without either, student code reads what the grader may read."""
    if course.limits.isolation == "bubblewrap" and _probe(None):
        raise Unavailable(f"limits.isolation is bubblewrap, but {_probe(None)}")
    private = (seed_set == "grading" and course.private_overlay is not None) or course.secret is not None
    if not private or os.environ.get("AUTOGRADER_INSECURE") == "1":
        return
    if course.limits.isolation != "uid" and not _probe(None):
        return
    if user.dropping(course.limits.sandbox_uids):
        return
    raise Unisolated(f"refusing to grade with the private overlay ({course.private_overlay}): student code would run "
                     f"unisolated here ({_probe(None) or 'limits.isolation is uid'}, and the grader is not root, so "
                     "no uid of its own either) and could read the grading seeds and the secret. Install bubblewrap, "
                     "run as root, or pass --insecure if you accept that")


def _system_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime"):
        args += ["--ro-bind-try", name, name]
    return args


def _python_mounts() -> list[str]:
    """The interpreter's installation and its environment, read-only, wherever they live."""
    args, seen = [], set()
    for prefix in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix,
                   str(Path(sys.executable).parent)):
        real = os.path.realpath(prefix)
        for path in {prefix, real}:
            if path in seen or path == "/usr" or path.startswith("/usr/"):
                continue
            seen.add(path)
            args += ["--ro-bind", path, path]
    return args


def _hidden() -> list[str]:
    """An installed kit lives in the Python environment, its oracles and bundled solutions with it: the child imports
    the staged runtime instead, so the kit's own folder is an empty tmpfs in there (mounted last, over everything)."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix,
                                              str(Path(sys.executable).parent))}
    if any(paths.PACKAGE.resolve().is_relative_to(prefix) for prefix in prefixes):
        return ["--tmpfs", str(paths.PACKAGE)]
    return []


def command(argv: list[str], *, readable: list[str], writable: list[str], workdir: str) -> list[str]:
    """``argv`` run under bubblewrap, seeing ``readable`` paths read-only and ``writable`` ones read-write."""
    # The private /tmp first, the interpreter's folders after it: a Python environment that lives under /tmp stays
    # visible (bubblewrap applies mounts in order, a later one over an earlier one).
    args = [_bwrap(), "--unshare-all", "--die-with-parent", "--new-session",
            *_system_mounts(),
            "--proc", "/proc", "--dev", "/dev",
            "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
            "--size", str(TMPFS_BYTES), "--tmpfs", "/dev/shm",
            *_python_mounts()]
    if os.geteuid() == 0:  # a grader that could not drop to a uid of its own: no capability survives either
        args += ["--cap-drop", "ALL"]
    for path in readable:
        args += ["--ro-bind", path, path]
    for path in writable:
        args += ["--bind", path, path]
    return [*args, *_hidden(), "--chdir", workdir, "--", *argv]


def _bwrap() -> str:
    return shutil.which("bwrap") or "bwrap"


_probed: dict[bool, str] = {}


def _probe(uid: int | None) -> str:
    """Why bubblewrap cannot run a Python child here as ``uid`` (None: the grader's own), or "" when it can.
    Probed once per grader process for a dropped uid and once for the grader's own."""
    if (uid is not None) not in _probed:
        _probed[uid is not None] = _try(uid)
    return _probed[uid is not None]


def _try(uid: int | None) -> str:
    if sys.platform != "linux":
        return "bubblewrap runs on Linux only"
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    argv = command([sys.executable, "-S", "-c", "print('ok')"], readable=[], writable=[], workdir="/")
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={}, cwd="/",
                              user=uid, group=uid, extra_groups=[] if uid is not None else None)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap could not start ({exc})"
    if done.returncode != 0 or done.stdout.strip() != "ok":
        return f"bwrap failed here ({(done.stderr.strip().splitlines() or [f'exit status {done.returncode}'])[-1]})"
    return ""


def usable(mode: str, uid: int | None) -> bool:
    """Whether children run under bubblewrap with course.yml's ``limits.isolation`` ``mode``: ``auto`` uses it
    where it works and warns once where not, ``bubblewrap`` requires it, ``uid`` never uses it."""
    if mode == "uid":
        return False
    reason = _probe(uid)
    if not reason:
        return True
    if mode == "bubblewrap":
        raise Unavailable(f"limits.isolation is bubblewrap, but {reason}")
    _warn_once(reason)
    return False


@functools.cache
def _warn_once(reason: str) -> None:
    dropped = "the uid drop and " if os.geteuid() == 0 else ""  # not root: there is no uid to drop to
    warnings.warn(f"{reason}: student code runs without its own namespaces, protected by {dropped}the limits alone "
                  "(see docs/security.md)", RuntimeWarning, stacklevel=4)
