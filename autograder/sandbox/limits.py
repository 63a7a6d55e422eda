"""What the child process may use, set between fork and exec: resource limits, no network, and its own uid.

Everything here runs in the forked child of a threaded parent, so it only calls functions resolved beforehand.
"""

from __future__ import annotations

import ctypes
import os
import resource

from autograder.config import Limits
from autograder.sandbox import user

CLONE_NEWNET = 0x40000000
_unshare = getattr(ctypes.CDLL(None, use_errno=True), "unshare", None)  # Linux only


def _leave_the_network() -> bool:
    """A network namespace of its own: only a loopback device, which is down. Needs root on Linux; False where
    refused (e.g. a container without CAP_SYS_ADMIN) or unknown (macOS), and the child then shares the network."""
    return _unshare is not None and _unshare(CLONE_NEWNET) == 0


def network_isolation_available() -> bool:
    """Whether children get no network here (tried in a throwaway child)."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _leave_the_network() else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def preexec(limits: Limits, uid: int | None, join: list[str] = ()):
    """The function run in the child before exec. ``uid`` None: keep the grader's uid (it is not root), and count
    the process limit on top of what that uid already runs (left unset where that cannot be counted). ``join``: the
    ``cgroup.procs`` files of the check's budget (``budget``), written while the child may still (as root)."""
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
