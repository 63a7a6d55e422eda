"""A check run within the submission's time budget: its CPU-time limit cut to what the budget has left."""

from __future__ import annotations

from pathlib import Path

from autograder.sandbox.runner import ChildRun, run_check
from autograder.status import Status
from autograder.submission_budget import SubmissionBudget


def within_budget(check_id: str, request: dict, limits, runtime_dir: Path, budget: SubmissionBudget) -> ChildRun:
    """``run_check`` with its CPU-time limit cut to what is left of the submission's budget; a check the budget
    does not reach is not started, and one it cuts short says so. Each names the checks that spent the budget."""
    left = budget.left()
    said = (f"the submission's time budget ({budget.seconds:g} s of the checks' own CPU time, course.yml's "
            "limits.submission_seconds) ran out {}; the checks that spent it: {}")
    if left <= 0:
        return ChildRun(Status.TIMEOUT, 0.0, message=said.format("before this check started", budget.spenders()))
    cut = left < limits.cpu_seconds
    outcome = run_check(request, limits.model_copy(update={"cpu_seconds": min(limits.cpu_seconds, left)}),
                        runtime_dir)
    if cut and outcome.status == Status.CRASHED and "of CPU" in outcome.message:  # stopped by the budget's CPU limit,
        used = max(outcome.cpu_seconds, left)  # so it used at least what was left (a reading may lag behind)
        budget.charge(check_id, used)
        return ChildRun(Status.TIMEOUT, outcome.seconds, message=said.format(
            f"during this check, after it used {used:.0f} s", budget.spenders()), cpu_seconds=used)
    budget.charge(check_id, outcome.seconds if outcome.status == Status.TIMEOUT else outcome.cpu_seconds)
    return outcome
