"""Waiting for a check's child: its end, its wall-time limit or Ctrl-C, with the CPU its process tree used."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

from autograder.proctree import tree_cpu

STOP = threading.Event()  # set on Ctrl-C: running children are killed, no new one starts


def kill_group(pid: int) -> None:
    if not hasattr(os, "killpg"):  # Windows: the runner kills the child itself (``runner.run_check``)
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


# Seconds between readings of a running check's CPU: a reading costs about 1.5 ms of the grader's CPU on a machine of
# 120 processes (it reads every /proc/N/stat), and the last half second of a check's CPU may go uncounted.
CPU_READINGS = 0.5


def _has_rusage() -> bool:
    """Whether ``os.wait4`` works here: it needs the ``resource`` module for the usage it returns."""
    try:
        import resource  # noqa: F401
    except ImportError:
        return False
    return hasattr(os, "wait4")


def reap(proc, block: bool) -> bool:
    """Reap the child with wait4, whose resource usage adds to ``proc.cpu_seconds`` what the last reading of the
    process tree may have missed. False while it still runs."""
    if not _has_rusage():  # Windows: no resource usage; the readings of the process tree are what is known
        return (proc.wait() if block else proc.poll()) is not None
    pid, status, usage = os.wait4(proc.pid, 0 if block else os.WNOHANG)
    if pid == 0:
        return False
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.cpu_seconds = max(proc.cpu_seconds, usage.ru_utime + usage.ru_stime)
    return True


def wait_for(proc, seconds: float) -> str:
    """Wait for the child: "done", "timeout" after ``seconds``, or "stopped" within a fraction of a second of STOP.
    Meanwhile ``proc.cpu_seconds`` follows the CPU the child's process tree has used (the check's own time)."""
    deadline, proc.cpu_seconds, read = time.monotonic() + seconds, 0.0, 0.0
    while not reap(proc, block=False):
        if STOP.is_set():
            return "stopped"
        if time.monotonic() >= deadline:
            return "timeout"
        if time.monotonic() >= read:
            proc.cpu_seconds, read = max(proc.cpu_seconds, tree_cpu(proc.pid)), time.monotonic() + CPU_READINGS
        time.sleep(max(0.0, min(0.05, deadline - time.monotonic())))
    return "done"
