"""The submission's time budget: what all checks of one submission may spend together, and the sentence a check
gets when it runs out."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.status import Status

if TYPE_CHECKING:
    from autograder.sandbox.runner import ChildRun


class Budget:
    """The submission's time budget (course.yml's ``limits.submission_seconds``), spent by each check's own time: the
    CPU its child used, never the time it spent waiting for a busy machine, so a slow or loaded grading machine
    spends none of it. A check stopped at its own wall-time limit spends that wall time: a hang that sleeps computes
    nothing, but it holds the submission up all the same."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._spent: dict[str, float] = {}
        self._lock = threading.Lock()

    def left(self) -> float:
        with self._lock:
            return self.seconds - sum(self._spent.values())

    def charge(self, check_id: str, seconds: float) -> None:
        with self._lock:
            self._spent[check_id] = self._spent.get(check_id, 0.0) + seconds

    def spenders(self) -> str:
        """The checks that spent the most, as a message names them: ``D.k_sweep 301 s, B.bar 190 s``."""
        with self._lock:
            spent = sorted(((s, c) for c, s in self._spent.items() if s >= 0.5), reverse=True)
        shown = ", ".join(f"{cid} {seconds:.0f} s" for seconds, cid in spent[:4])
        return shown + (f" and {len(spent) - 4} more" if len(spent) > 4 else "") if shown else "no other check"


class OutOfBudget(Exception):
    """The submission's time budget ran out before or during the grader's own work for a check (its audit of the
    runs); the message says so, naming the checks that spent it."""


_charging = threading.local()  # the budget and check the grader's own work for a check is charged to, per worker


@contextmanager
def charging(budget: Budget, check_id: str):
    """While the grader works for ``check_id`` in this thread (a bar's early audit), its work is charged to
    ``budget`` under the check's name (``grader_work``)."""
    _charging.now = (budget, check_id)
    try:
        yield
    finally:
        _charging.now = None


def grader_work() -> tuple[Budget, str] | None:
    """(budget, the check's id) of the grader's work going on in this thread, or None outside ``charging``."""
    return getattr(_charging, "now", None)


def within_budget(check_id: str, request: dict, limits, runtime_dir: Path, budget: Budget) -> ChildRun:
    """``run_check`` with its CPU-time limit cut to what is left of the submission's budget; a check the budget
    does not reach is not started, and one it cuts short says so. Each names the checks that spent the budget."""
    from autograder.sandbox.runner import ChildRun, run_check  # here: checks import this module in their child

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
