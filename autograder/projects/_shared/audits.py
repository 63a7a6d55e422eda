"""The bars' audits, started as soon as a seed's child hands its runs back, while the other children still train.

The grader calls a bar's ``on_shard`` when one seed's child ends; it replays that child's runs in a separate process
that runs no student code (``python -m autograder.projects._shared.audits``, the runs on stdin, the outcomes on
stdout) and keeps the outcomes in this process, keyed by a digest of the run, the seed, the bar and the replay. The
judge takes a kept outcome or, when there is none (the process failed, or the judge is called alone, as in tests),
replays the run itself: either way the same function decides (the project's replay, named ``"module:function"``
and called with the plain bar), so the early audit changes
when the work is done, never the grade. The child cannot reach the kept outcomes: they live in the grader's memory,
keyed by what the child sent.

The audits are the grader's work for the submission, and they run inside its time budget
(``submission_budget.charging``): each audit process may use only the CPU time the budget has left, and what it used
is charged to the check. Their cost is sized by course.yml alone (the bar's updates and hyperparameters): nothing a
student hands back makes a replay longer.
A run the budget left no time to audit is kept as such, and its judge says so (``OutOfBudget``) rather than replay it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from importlib import import_module

from autograder import paths
from autograder.submission_budget import OutOfBudget, grader_work

STOPPED_BY_CPU_LIMIT = {getattr(signal, name) for name in ("SIGXCPU", "SIGKILL") if hasattr(signal, name)}
_kept: dict[str, tuple[list, str | None] | OutOfBudget] = {}  # digest -> (episodes, failure or None), or why not
_lock = threading.Lock()


def digest(run_: dict, seed: int, bar: dict, replay: str) -> str:
    """SHA-256 of the run as sent, its seed, the bar and the replay: one kept outcome per exact input."""
    return hashlib.sha256(json.dumps([run_, seed, bar, replay], sort_keys=True).encode()).hexdigest()


def start(run_: dict, seed: int, bar: dict, replay: str) -> None:
    """Audit one run now (see ``start_all``)."""
    start_all([(run_, seed, bar)], replay)


def start_all(runs: list[tuple[dict, int, dict]], replay: str) -> None:
    """Audit (run, seed, bar) triples of one project, one after another, in one fresh process (one BLAS thread) and
    keep their outcomes; on any other failure keep nothing, so that the judge replays the runs itself and reports what
    went wrong. Within a submission's budget (``submission_budget.charging``), the process may use only the CPU time
    left."""
    charged = grader_work()
    left = charged[0].left() if charged else None
    if left is not None and left <= 0:
        return _keep_out_of_budget(runs, replay, charged, "before the grader's audit of your runs")
    env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    request = {"replay": replay, "runs": [{"run": r, "seed": s, "bar": b} for r, s, b in runs], "cpu_seconds": left}
    done = subprocess.run([sys.executable, "-m", "autograder.projects._shared.audits"], capture_output=True,
                          input=json.dumps(request), text=True, env=env)
    if done.returncode == 0:
        answer = json.loads(done.stdout)
        if charged:
            charged[0].charge(charged[1], answer["cpu_seconds"])
        with _lock:
            for (run_, seed, bar), outcome in zip(runs, answer["outcomes"]):
                _kept[digest(run_, seed, bar, replay)] = ([tuple(e) for e in outcome["episodes"]],
                                                           outcome["failure"])
    elif left is not None and -done.returncode in STOPPED_BY_CPU_LIMIT:  # the budget is spent
        charged[0].charge(charged[1], left)
        _keep_out_of_budget(runs, replay, charged, "during the grader's audit of your runs")


def _limit_cpu(seconds: float | None) -> None:
    """In the audit process (which runs no student code): stop it after ``seconds`` of CPU time, where the platform
    can (elsewhere the charge after the audit still counts its time)."""
    if seconds is None:
        return
    try:
        import resource
    except ImportError:
        return
    whole = max(1, math.ceil(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (whole, whole + 1))


def _keep_out_of_budget(runs, replay: str, charged, when: str) -> None:
    budget, _ = charged
    said = OutOfBudget(f"the submission's time budget ({budget.seconds:g} s of CPU time, course.yml's "
                       f"limits.submission_seconds) ran out {when}; the checks that spent it: {budget.spenders()}")
    with _lock:
        for run_, seed, bar in runs:
            _kept[digest(run_, seed, bar, replay)] = said


def taken(run_: dict, seed: int, bar: dict, replay: str) -> tuple[list, str | None] | None:
    """The kept outcome of this exact run, removed from the keep, or None; raises ``OutOfBudget`` for a run the
    budget left no time to audit."""
    with _lock:
        kept = _kept.pop(digest(run_, seed, bar, replay), None)
    if isinstance(kept, OutOfBudget):
        raise kept
    return kept


def replayer(name: str):
    """The replay named ``"module:function"``: ``function(run, seed, bar as plain data)`` -> (episodes, failure)."""
    module, function = name.split(":")
    return getattr(import_module(module), function)


def main() -> None:
    request = json.loads(sys.stdin.read())
    _limit_cpu(request.get("cpu_seconds"))
    replay = replayer(request["replay"])
    outcomes = []
    for item in request["runs"]:
        episodes, failure = replay(item["run"], item["seed"], item["bar"])
        outcomes.append({"episodes": episodes, "failure": failure})
    json.dump({"outcomes": outcomes, "cpu_seconds": time.process_time()}, sys.stdout)


if __name__ == "__main__":
    main()
