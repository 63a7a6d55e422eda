"""The parent side: start the child with limits, wait for it, and say what happened in words."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder import paths
from autograder.config import Limits


@dataclass
class Outcome:
    """``status`` is ok, student_error, timeout, memory, crashed or internal_error."""

    status: str
    seconds: float
    data: dict = field(default_factory=dict)
    message: str = ""
    kind: str = ""


def _limit_child(limits: Limits):
    def apply():
        megabyte = 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * megabyte,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_mb * megabyte,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _child_env(workdir: str) -> dict:
    """A scrubbed environment: nothing of the grader's, one BLAS thread, a headless matplotlib."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "TMPDIR": workdir,
           "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
           "PYTHONPATH": str(paths.KIT_ROOT)}
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # kept: some CPUs need them for correct results
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _died(returncode: int, limits: Limits, stderr_tail: str) -> Outcome:
    if returncode < 0 and -returncode == signal.SIGXFSZ:
        return Outcome("crashed", 0, message=f"wrote more than {limits.output_mb} MB of output and was stopped")
    if returncode < 0 and -returncode in (signal.SIGKILL, signal.SIGSEGV) and "MemoryError" in stderr_tail:
        return Outcome("memory", 0, message=f"ran out of memory (limit {limits.memory_mb} MB)")
    how = f"was killed by signal {signal.Signals(-returncode).name}" if returncode < 0 else f"exited with code {returncode}"
    return Outcome("crashed", 0, message=f"the process running your code {how} before the check finished "
                                        "(does your code call sys.exit or os._exit, or crash the interpreter?)")


def run_check(request: dict, limits: Limits) -> Outcome:
    """Run ``request`` (project, check, folder, seeds, bar) in a child process under ``limits``."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="autograder-") as workdir:
        request = {**request, "result": os.path.join(workdir, "result.json")}
        request_file = Path(workdir, "request.json")
        request_file.write_text(json.dumps(request))
        with open(Path(workdir, "stdout"), "wb") as out, open(Path(workdir, "stderr"), "wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "autograder.sandbox.child", str(request_file)],
                                    cwd=workdir, env=_child_env(workdir), stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, preexec_fn=_limit_child(limits), start_new_session=True)
            try:
                proc.wait(timeout=limits.wall_seconds)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return Outcome("timeout", time.perf_counter() - started,
                               message=f"did not finish within {limits.wall_seconds:g} s (the check's wall-time "
                                       "limit); look for an endless loop or a step far slower than needed")
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # leftovers the student's code may have started
        except ProcessLookupError:
            pass
        seconds = time.perf_counter() - started
        result_file = Path(request["result"])
        if not result_file.exists():
            tail = Path(workdir, "stderr").read_bytes()[-2000:].decode("utf-8", "replace")
            outcome = _died(proc.returncode, limits, tail)
            outcome.seconds = seconds
            return outcome
        result = json.loads(result_file.read_text())
    if result["status"] == "memory":
        result["message"] = f"ran out of memory (limit {limits.memory_mb} MB)"
    return Outcome(result["status"], seconds, result.get("data", {}), result.get("message", ""),
                   result.get("kind", ""))
