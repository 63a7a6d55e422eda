"""How a check's child process starts. A fresh interpreter spends about 0.15 s of CPU importing numpy and the checks
before it runs a line of the student's code, and a project's run starts one child per check and per seed: where the
platform can fork (Linux, macOS), each child is forked instead from one server that imported them once
(``multiprocessing``'s forkserver, itself a fresh interpreter, so no state of the checker leaks into a child). Each
child still runs alone: its own process, session, working folder, output file and memory limit, killed as a group
when its time is up. Elsewhere (Windows) each child is a fresh ``python -m capstone_check.child``."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

try:
    import resource
except ImportError:  # Windows
    resource = None

CHILD_ENV = {"MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
             "MKL_NUM_THREADS": "1"}


def can_fork() -> bool:
    return hasattr(os, "fork") and "forkserver" in multiprocessing.get_all_start_methods()


def limiter(memory_mb: int | None):
    """What sets a child's memory limit as it starts, or None where it cannot be set."""
    if resource is None or not hasattr(os, "fork") or not memory_mb:
        return None

    def apply():
        size = memory_mb * 2**20
        try:
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: the wall-time limit stays
            pass
    return apply


def _server(modules: list[str]):
    """The forkserver context, its server importing ``modules`` (after ``preload``, which sets the environment)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["capstone_check.preload", "capstone_check.child", *modules])
    return context


def _forked(request_file: str, output: str, memory_mb: int | None) -> None:
    """The body of a forked child: what ``python -m capstone_check.child REQUEST`` does in a fresh process."""
    os.setsid()
    limit = limiter(memory_mb)
    if limit is not None:
        limit()
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.chdir(Path(request_file).parent)
    if "numpy.random" in sys.modules:  # a fresh interpreter seeds numpy's global generator afresh: so does a fork
        sys.modules["numpy.random"].seed()
    from capstone_check.child import run

    request = json.loads(Path(request_file).read_text())
    Path(request["result"]).write_text(json.dumps(run(request)))


class Forked:
    """A child forked from the server, waited on and stopped as ``subprocess.Popen`` is."""

    def __init__(self, request_file: Path, output: Path, memory_mb: int | None, modules: list[str]):
        self.process = _server(modules).Process(target=_forked, args=(str(request_file), str(output), memory_mb))
        self.process.start()

    def wait(self, timeout: float) -> bool:
        """Whether it ended within ``timeout`` seconds."""
        self.process.join(timeout)
        return self.process.exitcode is not None

    def stop(self) -> int:
        """Kill what is left of its session; its exit status."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.process.exitcode is None:
            self.process.kill()
        self.process.join()
        return self.process.exitcode


class Fresh:
    """A child that is a fresh interpreter."""

    def __init__(self, request_file: Path, output: Path, memory_mb: int | None):
        self.posix = os.name == "posix"
        with open(output, "w+b") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "capstone_check.child", str(request_file)],
                                            cwd=request_file.parent, env={**os.environ, **CHILD_ENV},
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                            preexec_fn=limiter(memory_mb) if self.posix else None,
                                            start_new_session=self.posix)

    def wait(self, timeout: float) -> bool:
        try:
            self.process.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def stop(self) -> int:
        if self.posix:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        elif self.process.poll() is None:
            self.process.kill()
        return self.process.wait()


def start(request_file: Path, output: Path, memory_mb: int | None, modules: list[str], fork: bool):
    """A running child for the request in ``request_file`` (forked when ``fork``, which needs ``can_fork()``)."""
    return Forked(request_file, output, memory_mb, modules) if fork else Fresh(request_file, output, memory_mb)
