"""What the child process may use, set between fork and exec: resource limits, no network, and its own uid.

Everything here runs in the forked child of a threaded parent, so it only calls functions resolved beforehand.
"""

from __future__ import annotations

import ctypes
import os
import warnings

from autograder.config import Limits
from autograder.sandbox import user

try:
    import resource
except ImportError:  # Windows: no resource limits, no fork; see ``preexec``
    resource = None

CLONE_NEWNET = 0x40000000
try:
    _unshare = getattr(ctypes.CDLL(None, use_errno=True), "unshare", None)  # Linux only
except (OSError, TypeError):  # no C library to look in (Windows)
    _unshare = None
_said = []


def _leave_the_network() -> bool:
    """A network namespace of its own: only a loopback device, which is down. Needs root on Linux; False where
    refused (e.g. a container without CAP_SYS_ADMIN) or unknown (macOS), and the child then shares the network."""
    return _unshare is not None and _unshare(CLONE_NEWNET) == 0


def network_isolation_available() -> bool:
    """Whether children get no network here (tried in a throwaway child; never where there is no fork)."""
    if not hasattr(os, "fork"):
        return False
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _leave_the_network() else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def plain_only() -> bool:
    """Whether children can only be plain processes here: no ``resource`` module or no ``fork`` (Windows)."""
    return resource is None or not hasattr(os, "fork")


def preexec(limits: Limits, uid: int | None, join: list[str] = ()):
    """The function run in the child before exec. ``uid`` None: keep the grader's uid (it is not root), and count
    the process limit on top of what that uid already runs (left unset where that cannot be counted). ``join``: the
    ``cgroup.procs`` files of the check's budget (``budget``), written while the child may still (as root).

    None where there is no ``resource`` or no ``fork``: the child is then a plain process whose only limit is the
    runner's wall time, and a warning says once what is not enforced.
    """
    if plain_only():
        if not _said:
            _said.append(True)
            warnings.warn("this machine has no resource limits or no fork (as on Windows): each check runs in a plain "
                          "child process with a wall-time limit only; its memory, CPU time, output size, processes, "
                          "network and uid are not limited here", RuntimeWarning, stacklevel=2)
        return None
    megabyte = 1024 * 1024
    running = 0 if uid is not None else user.tasks_of(os.getuid())
    nproc = None if running is None else running + limits.processes
    cpu = int(limits.cpu_seconds + 0.999)

    def apply():
        for procs in join:  # first: every process the child starts from here on is counted and killed with it
            fd = os.open(procs, os.O_WRONLY)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
        _leave_the_network()
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * megabyte,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_mb * megabyte,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the limit, SIGKILL a second later
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if uid is not None:
            user.switch_to(uid)
    return apply
