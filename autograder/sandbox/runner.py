"""The parent side: start the child with limits, wait for it, and say what happened in words.

The child gets a temporary working directory holding a copy of the student's project folder and its request, the
staged runtime (see ``runtime``), a scrubbed environment, and, where the grader is root, a uid of its own (``user``).
What comes back is read as untrusted JSON: student code controls the child and can write any result file it likes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config import Limits
from autograder.projects import PROJECTS
from autograder.sandbox import limits as sandbox_limits
from autograder.sandbox import cgroups
from autograder.sandbox import jail, runtime, staging, user
from autograder.sandbox.waiting import STOP, kill_group, reap, wait_for
from autograder.status import CHILD_STATUSES, Status

@dataclass
class ChildRun:
    """What one run of a check's child came to: its ``Status`` (``STOPPED`` when ``STOP`` was set), and the data to
    judge when it is ``OK`` (for ``STUDENT_ERROR``, what the check had collected when the student's code raised)."""

    status: Status
    seconds: float
    data: dict = field(default_factory=dict)
    message: str = ""
    kind: str = ""
    raw: bytes = b""  # an ok result as JSON text, parsed by ``payload`` when it is judged, one check at a time
    cpu_seconds: float = 0.0  # the CPU the check's child (and the processes it waited for) used: its own time
    exception: str = ""  # the type of the student's exception behind a student_error, as the child said (untrusted)
    seedless: bool = False  # made where no seed reached student code (the import probe): shown as it is

    def __post_init__(self):
        self.status = Status(self.status)  # a status given by its value is held as the member

    def payload(self) -> dict:
        """The collected data. Held as text until asked for, since a parsed result costs about eight times its size
        (a float object per number) and a submission's results would otherwise all be held parsed at once."""
        return json.loads(self.raw)["data"] if self.raw else self.data


def _child_env(workdir: str, runtime_dir: Path) -> dict:
    """A scrubbed environment: nothing of the grader's, one BLAS thread, a headless matplotlib."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir,
           "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
           "PYTHONPATH": str(runtime_dir), "PYTHONNOUSERSITE": "1",
           "PYDANTIC_DISABLE_PLUGINS": "__all__"}  # a bar's one model needs none, and finding them reads every package
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # kept: some CPUs need them for correct results
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _died(returncode: int, limits: Limits, stderr_tail: str) -> ChildRun:
    if returncode < 0 and -returncode == signal.SIGXFSZ:
        return ChildRun(Status.CRASHED, 0, message=f"wrote more than {limits.output_mb} MB of output and was stopped")
    if returncode < 0 and -returncode == signal.SIGXCPU:
        return ChildRun(Status.CRASHED, 0, message=f"used more than {limits.cpu_seconds:g} s of CPU (the check's "
                                                    "CPU-time limit) and was stopped; look for an endless loop")
    if returncode < 0 and -returncode in (signal.SIGKILL, signal.SIGSEGV) and "MemoryError" in stderr_tail:
        return ChildRun(Status.MEMORY, 0, message=f"ran out of memory (limit {limits.memory_mb} MB)")
    how = (f"was killed by signal {signal.Signals(-returncode).name}" if returncode < 0
           else f"exited with code {returncode}")
    return ChildRun(Status.CRASHED, 0, message=f"the process running your code {how} before the check finished "
                                               "(does your code call sys.exit or os._exit, or crash the interpreter?)")


class _Unreadable(Exception):
    pass


# A parsed JSON value costs about 32 bytes (a float and its slot in a list) however short its text ("1," is two), so a
# result of many tiny values costs many times its size once parsed: results of "1.5," just under their limits took a
# grading of A and B to 1.27 GB (benchmarks/forged_results.py).
# Results may hold one value (list item or key) per BYTES_PER_VALUE bytes of their limit; the reference's densest
# holds one per 56 (37,584 in a 2 MB result).
BYTES_PER_VALUE = 16


def _read_result(path: Path, limit_mb: float) -> tuple[dict, bytes]:
    """The child's result file as a dict of the expected form, read without following a link the child may have
    planted or waiting on a fifo it may have put there, and never more than ``limit_mb``."""
    limit = int(limit_mb * 2**20)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError:
        raise _Unreadable("it is not a plain file") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _Unreadable("it is not a plain file")
        if info.st_size > limit:
            raise _Unreadable(f"it is larger than {limit_mb:g} MB (course.yml's limits.result_mb)")
        text = handle.read(limit + 1)
    if len(text) > limit:  # grown since fstat, by a process the child left behind
        raise _Unreadable(f"it is larger than {limit_mb:g} MB (course.yml's limits.result_mb)")
    if text.count(b",") > limit // BYTES_PER_VALUE:  # counted before parsing: what parsing it would cost
        raise _Unreadable(f"it holds more than {limit // BYTES_PER_VALUE} values, more than a result of "
                          f"{limit_mb:g} MB may")
    try:
        result = json.loads(text)
    except (ValueError, RecursionError):
        raise _Unreadable("it is not valid JSON") from None
    if not (isinstance(result, dict) and isinstance(result.get("status"), str) and result["status"] in CHILD_STATUSES
            and isinstance(result.get("data", {}), dict) and isinstance(result.get("partial", {}), dict)
            and all(isinstance(result.get(key, ""), str) for key in ("message", "kind", "exception"))):
        raise _Unreadable("it does not have the form the grader writes")
    return result, text


def _stderr_tail(err) -> str:
    err.seek(0, os.SEEK_END)
    err.seek(max(0, err.tell() - 2000))
    return err.read().decode("utf-8", "replace")


def _start(workdir: Path, home: Path, request: dict, runtime_dir: Path, limits: Limits, uid: int | None,
           jailed: bool, out, err, join: list[str]):
    request_file = workdir / "request.json"
    request_file.write_text(json.dumps(request))
    request_file.chmod(0o644)
    argv = [sys.executable, "-m", "autograder.sandbox.child", str(request_file)]
    if jailed:
        seen = [str(runtime_dir), str(workdir / "submission"), str(request_file)]
        argv = jail.command(argv, readable=seen + ([request["inputs"]] if request.get("inputs") else []),
                            writable=[str(home)], workdir=str(home))
    return subprocess.Popen(argv, cwd=home, env=_child_env(str(home), runtime_dir), stdin=subprocess.DEVNULL,
                            stdout=out, stderr=err, preexec_fn=sandbox_limits.preexec(limits, uid, join),
                            start_new_session=True)


def _stage_inputs(request: dict, workdir: Path) -> dict:
    """The input file a check's ``prepare`` made, copied beside the request under a neutral name: its own name
    and folder (the grader's cache) are not for the child to see."""
    if not request.get("inputs"):
        return request
    copy = workdir / ("inputs" + Path(request["inputs"]).suffix)
    shutil.copyfile(request["inputs"], copy)
    copy.chmod(0o644)
    return {**request, "inputs": str(copy)}


def _stage_submission(folder: str, workdir: Path) -> str:
    """A copy of the project folder's regular files that any uid may read but not change: the child never gets the
    original's path, and nothing the grader could block on or should not read (see ``staging``)."""
    copy = workdir / "submission" / Path(folder).name
    if Path(folder).is_dir():
        staging.stage(Path(folder), copy)
    else:
        copy.mkdir(parents=True)
    (workdir / "submission").chmod(0o755)
    for folder, _, files in os.walk(copy):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return str(copy)


def _workdirs(workdir: str, uid: int | None, budget: cgroups.CheckGroup) -> tuple[Path, Path]:
    """The grader's folder for this check (request, output files, the submission's copy; the child cannot rename or
    change anything in it) and, inside it, the child's home: its working directory and the only place it may write
    (a tmpfs of the check's ``disk_mb`` where the budget can mount one)."""
    workdir, home = Path(workdir), Path(workdir, "home")
    workdir.chmod(0o711)
    home.mkdir(mode=0o700)
    if uid is not None:
        os.chown(home, uid, uid)
    budget.mount_home(home, uid)
    return workdir, home


def run_check(request: dict, limits: Limits, runtime_dir: Path | None = None) -> ChildRun:
    """Run ``request`` (project, check, folder, seeds, bar) in a child process under ``limits``.

    ``runtime_dir`` is the staged runtime of this grading run; without one, a runtime is staged for this check.
    """
    if runtime_dir is None:
        with runtime.staged() as staged:
            return run_check(request, limits, staged)
    started = time.perf_counter()
    if STOP.is_set():
        return ChildRun(Status.STOPPED, 0.0, message="grading was stopped before this check started")
    lease, budget = user.Lease(limits.sandbox_uids), cgroups.CheckGroup(limits)
    try:
        with tempfile.TemporaryDirectory(prefix="autograder-") as tmp:
            try:
                return _run(request, limits, runtime_dir, lease, budget, tmp, started)
            finally:
                budget.close()  # before the folder goes: the home unmounted, the groups removed
    finally:
        budget.close()
        lease.release()


def _run(request: dict, limits: Limits, runtime_dir: Path, lease: user.Lease, budget: cgroups.CheckGroup, tmp: str,
         started: float) -> ChildRun:
    workdir, home = _workdirs(tmp, lease.uid, budget)
    if budget.missing and (os.geteuid() == 0 or request.get("seed_set") == "grading"):
        cgroups.say_once(tuple(budget.missing))  # a student's own check on their own machine: nothing to say
    request = {**_stage_inputs(request, workdir), "folder": _stage_submission(request["folder"], workdir),
               "result": str(home / "result.json"), "package": PROJECTS.package(request["project"]),
               "modules": list(PROJECTS[request["project"]].modules)}
    try:
        jailed = jail.usable(limits.isolation, lease.uid)
    except jail.Unavailable as exc:  # bubblewrap runs for the grader but not for the uid it dropped to
        return ChildRun(Status.INTERNAL_ERROR, time.perf_counter() - started, message=str(exc))
    with open(workdir / "stdout", "w+b") as out, open(workdir / "stderr", "w+b") as err:
        proc = _start(workdir, home, request, runtime_dir, limits, lease.uid, jailed, out, err, budget.join)
        ended = wait_for(proc, limits.wall_seconds)
        kill_group(proc.pid)  # on a timeout the child, otherwise whatever it left running
        budget.kill()  # and every process of the check, whoever it runs as and wherever it went
        if proc.returncode is None:
            if not hasattr(os, "killpg"):  # no process groups (a plain child, see limits.preexec)
                proc.kill()
            reap(proc, block=True)
        cpu = proc.cpu_seconds
        lease.release()  # and, under a uid of its own, whatever left the process group
        seconds = time.perf_counter() - started
        if ended == "stopped":
            return ChildRun(Status.STOPPED, seconds, message="grading was stopped before this check finished",
                           cpu_seconds=cpu)
        if ended == "timeout":
            return ChildRun(Status.TIMEOUT, seconds,
                           message=f"did not finish within {limits.wall_seconds:g} s (the check's wall-time "
                                   "limit); look for an endless loop or a step far slower than needed",
                           cpu_seconds=cpu)
        try:
            result, text = _read_result(Path(request["result"]), limits.result_mb)
        except (FileNotFoundError, _Unreadable) as exc:
            outcome = _without_result(exc, proc.returncode, jailed, limits, budget, _stderr_tail(err))
            outcome.seconds, outcome.cpu_seconds = seconds, cpu
            return outcome
    outcome = _outcome(result, text, seconds, limits)
    outcome.cpu_seconds = cpu
    return outcome


def _without_result(exc: Exception, code: int, jailed: bool, limits: Limits, budget: cgroups.CheckGroup,
                    stderr_tail: str) -> ChildRun:
    """What happened to a child that left no usable result: a budget it went over, a signal, an exit, a forgery."""
    if budget.disk_full():  # the child's own result may have been cut short by it
        return ChildRun(Status.CRASHED, 0, message=f"wrote more than {limits.disk_mb} MB in all (the check's disk "
                                                    "limit: every file it writes counts) and could not go on")
    if isinstance(exc, _Unreadable):
        return ChildRun(Status.CRASHED, 0, message=f"the check's result file could not be used ({exc}); code that "
                                                    "writes it itself gains nothing")
    if budget.oom_killed():
        return ChildRun(Status.MEMORY, 0, message=f"used more than {limits.memory_mb} MB of memory (all its "
                                                   "processes together: the check's memory limit)")
    if jailed and code > jail.SIGNAL_BASE:  # bubblewrap reports a signal as 128 + its number
        code = jail.SIGNAL_BASE - code
    return _died(code, limits, stderr_tail)


def _outcome(result: dict, text: bytes, seconds: float, limits: Limits) -> ChildRun:
    message = result.get("message", "")
    if result["status"] == Status.MEMORY:
        message = f"ran out of memory (limit {limits.memory_mb} MB)"
    if result.get("kind") == "processes":
        message = (f"started more than {limits.processes} processes (the check's process limit) and could not start "
                   "another; " + message)
    kind = "child" if result["status"] == Status.INTERNAL_ERROR else result.get("kind", "")
    if result["status"] == Status.OK:
        return ChildRun(Status.OK, seconds, message=message, kind=kind, raw=text)
    partial = result.get("partial", {}) if result["status"] == Status.STUDENT_ERROR else {}  # untrusted: see Check
    return ChildRun(Status(result["status"]), seconds, partial, message, kind, exception=result.get("exception", ""))
