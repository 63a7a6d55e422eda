"""Run a project's checks, each in a plain child process with a wall-time limit, and hand back each row as it ends.

The checks of single pieces start first (they take a second each), the training checks after them, so the first
verdict comes in seconds. Students run this on their own machines (Linux, macOS, Windows, Colab, a JupyterHub): no
sandbox is needed there, and none is assumed. Where ``resource`` exists the child's memory is limited too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

try:
    import resource
except ImportError:  # Windows
    resource = None

EXPECTED = Path(__file__).parent / "expected"
SLOWER = 3  # a student's laptop may be slower than the grading machine: wall-time limits are the course's times this
_said = threading.Event()


class CheckerError(Exception):
    """The checker cannot run as asked (no expected values, an unknown project); the message says why."""


@dataclass
class Row:
    check: str
    name: str
    points: float
    score: float
    passed: bool
    message: str
    seconds: float
    final_only: bool = False  # not run here: it needs the reference at run time


FINAL_ONLY = ("not checked here: final grading re-runs your training itself and replays every update against the "
              "reference, which this kit does not hold")


def expected(project: str) -> dict:
    path = EXPECTED / f"{project}.json"
    if not path.is_file():
        have = ", ".join(sorted(p.stem for p in EXPECTED.glob("*.json"))) or "none"
        raise CheckerError(f"no expected values for project {project} in this checker (it has: {have}); it is built "
                           "by the course's `autograder release`")
    return json.loads(path.read_text())


def projects() -> list[str]:
    return sorted(p.stem for p in EXPECTED.glob("*.json"))


def limits_note(memory_mb: int | None) -> str:
    """What this machine's checker enforces, said once."""
    if resource is not None and hasattr(os, "fork") and memory_mb:
        return ""
    return ("note: on this machine each check runs in a plain child process with a wall-time limit only; memory and "
            "CPU limits are not enforced here (final grading enforces them)")


def _memory_limit(memory_mb: int | None):
    if resource is None or not hasattr(os, "fork") or not memory_mb:
        return None

    def apply():
        size = memory_mb * 2**20
        try:
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: the wall-time limit stays
            pass
    return apply


def _child_env() -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    return env


def run_one(spec_file: Path, data: dict, check: str, folder: Path) -> Row:
    spec, started = data["checks"][check], time.perf_counter()
    if spec["kind"] == "final_only":
        return Row(check, spec["name"], spec["points"], 0.0, False, FINAL_ONLY, 0.0, final_only=True)
    seconds = spec["wall_seconds"] * SLOWER
    with tempfile.TemporaryDirectory(prefix="capstone-check-") as tmp:
        request = {"expected": str(spec_file), "check": check, "folder": str(folder), "modules": data["modules"],
                   "result": str(Path(tmp, "result.json"))}
        Path(tmp, "request.json").write_text(json.dumps(request))
        posix = os.name == "posix"
        with open(Path(tmp, "output"), "w+b") as out:
            proc = subprocess.Popen([sys.executable, "-m", "capstone_check.child", str(Path(tmp, "request.json"))],
                                    cwd=tmp, env=_child_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    preexec_fn=_memory_limit(data.get("memory_mb")) if posix else None,
                                    start_new_session=posix)
            try:
                proc.wait(timeout=seconds)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            _stop(proc, posix)
        result = _result(Path(tmp, "result.json"), proc.returncode, timed_out, seconds)
    fraction = min(max(float(result["fraction"]), 0.0), 1.0)
    if spec["credit"] == "all_or_nothing" and fraction < 1.0:
        fraction = 0.0
    return Row(check, spec["name"], spec["points"], round(spec["points"] * fraction, 2), fraction >= 1.0,
               result["message"] + spec.get("note", ""), time.perf_counter() - started)


def _stop(proc, posix: bool) -> None:
    if posix:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    elif proc.poll() is None:
        proc.kill()
    proc.wait()


def _result(path: Path, returncode: int, timed_out: bool, seconds: float) -> dict:
    if timed_out:
        return {"fraction": 0.0, "message": f"did not finish within {seconds:g} s; look for an endless loop or a "
                                            "step far slower than needed"}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"fraction": 0.0, "message": f"the process running your code ended (exit status {returncode}) "
                                            "before the check finished (does your code call sys.exit or os._exit?)"}


def run_project(project: str, folder: Path, checks: list[str] | None = None, jobs: int | None = None):
    """Yield each check's ``Row`` as it finishes, the checks of single pieces first."""
    spec_file = EXPECTED / f"{project}.json"
    data = expected(project)
    wanted = [c for c in data["checks"] if checks is None or c in checks]
    wanted.sort(key=lambda c: data["checks"][c]["cost"])
    jobs = jobs or max(1, min(2, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_one, spec_file, data, check, folder) for check in wanted]
        for future in as_completed(futures):
            yield future.result()


def say_limits_once(memory_mb: int | None, write=print) -> None:
    note = limits_note(memory_mb)
    if note and not _said.is_set():
        _said.set()
        write(note)
