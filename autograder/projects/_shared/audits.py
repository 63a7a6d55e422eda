"""The bars' audits, started as soon as a seed's child hands its runs back, while the other children still train.

The grader calls a bar's ``on_shard`` when one seed's child ends; it replays that child's runs in a separate process
that runs no student code (``python -m autograder.projects._shared.audit_process``, the runs on stdin, the outcomes on
stdout) and keeps the outcomes in the grading run (``GradingRun``, the context's ``grading``), keyed by a digest of
the run, the seed, the bar and the replay. The judge takes a kept outcome or, when there is none (the process failed,
or the judge is called alone, as in tests), replays the run itself: either way the same function decides (the
project's replay, called with the plain bar; the audit process is told its name), so the early audit changes when the
work is done, never the grade. The child cannot reach the kept outcomes: they live in the grader's memory, keyed by
what the child sent.

The audits are the grader's work for the submission, and they run inside its time budget (the grading run's
``budget``): each audit process may use only the CPU time the budget has left, and what it used is charged to the
check. Their cost is sized by course.yml alone (the bar's updates and hyperparameters): nothing a student hands back
makes a replay longer. A run the budget left no time to audit is kept as such, and its judge says so
(``OutOfBudget``) rather than replay it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable

from autograder import paths
from autograder.grading_run import GradingRun
from autograder.submission_budget import OutOfBudget

STOPPED_BY_CPU_LIMIT = {getattr(signal, name) for name in ("SIGXCPU", "SIGKILL") if hasattr(signal, name)}
Replay = Callable[[dict, int, dict], tuple[list, "dict | None"]]  # (run, seed, plain bar) -> (episodes, departure)


def name_of(replay: Replay) -> str:
    """How the audit process is told which replay to run: ``module:function``."""
    return f"{replay.__module__}:{replay.__qualname__}"


def digest(run_: dict, seed: int, bar: dict, replay: Replay) -> str:
    """SHA-256 of the run as sent, its seed, the bar and the replay: one kept outcome per exact input."""
    return hashlib.sha256(json.dumps([run_, seed, bar, name_of(replay)], sort_keys=True).encode()).hexdigest()


def start(grading: GradingRun | None, run_: dict, seed: int, bar: dict, replay: Replay, check_id: str) -> None:
    """Audit one run now (see ``start_all``)."""
    start_all(grading, [(run_, seed, bar)], replay, check_id)


def start_all(grading: GradingRun | None, runs: list[tuple[dict, int, dict]], replay: Replay, check_id: str) -> None:
    """Audit (run, seed, bar) triples of one project, one after another, in one fresh process (one BLAS thread) and
    keep their outcomes in the grading run (none: nothing is kept, the judge replays); on any other failure keep
    nothing, so that the judge replays the runs itself and reports what went wrong. The process may use only the CPU
    time the run's budget has left, and what it used is charged to ``check_id``'s audit."""
    if grading is None:
        return
    spender, budget = f"{check_id} (the grader's audit)", grading.budget
    left = budget.left() if budget else None
    if left is not None and left <= 0:
        return _keep_out_of_budget(grading, runs, replay, "before the grader's audit of your runs")
    env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    request = {"replay": name_of(replay), "runs": [{"run": r, "seed": s, "bar": b} for r, s, b in runs],
               "cpu_seconds": left}
    done = subprocess.run([sys.executable, "-m", "autograder.projects._shared.audit_process"], capture_output=True,
                          input=json.dumps(request), text=True, env=env)
    if done.returncode == 0:
        answer = json.loads(done.stdout)
        if budget:
            budget.charge(spender, answer["cpu_seconds"])
        with grading.lock:
            for (run_, seed, bar), outcome in zip(runs, answer["outcomes"]):
                grading.kept[digest(run_, seed, bar, replay)] = ([tuple(e) for e in outcome["episodes"]],
                                                                 outcome["failure"])
    elif left is not None and -done.returncode in STOPPED_BY_CPU_LIMIT:  # the budget is spent
        budget.charge(spender, left)
        _keep_out_of_budget(grading, runs, replay, "during the grader's audit of your runs")


def _keep_out_of_budget(grading: GradingRun, runs, replay: Replay, when: str) -> None:
    budget = grading.budget
    said = OutOfBudget(f"the submission's time budget ({budget.seconds:g} s of CPU time, course.yml's "
                       f"limits.submission_seconds) ran out {when}; the checks that spent it: {budget.spenders()}")
    with grading.lock:
        for run_, seed, bar in runs:
            grading.kept[digest(run_, seed, bar, replay)] = said


def taken(grading: GradingRun | None, run_: dict, seed: int, bar: dict, replay: Replay) -> tuple | None:
    """The outcome the grading run kept of this exact run, removed from the keep, or None; raises ``OutOfBudget`` for a
    run the budget left no time to audit."""
    if grading is None:
        return None
    with grading.lock:
        kept = grading.kept.pop(digest(run_, seed, bar, replay), None)
    if isinstance(kept, OutOfBudget):
        raise kept
    return kept


def kept_or_replayed(grading: GradingRun | None, run_: dict, seed: int, bar: dict, replay: Replay):
    """The outcome the grading run kept of this run, else the replay's now (as a judge graded alone always does)."""
    return taken(grading, run_, seed, bar, replay) or replay(run_, seed, bar)
