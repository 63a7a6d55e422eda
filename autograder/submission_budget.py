"""The submission's time budget: what all checks of one submission may spend together, and the sentence a check
gets when it runs out."""

from __future__ import annotations

import threading


class SubmissionBudget:
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
        more = len(spent) - 4
        return shown + (f" and {more} more check{'s' * (more != 1)}" if more > 0 else "") if shown else "no other check"


class OutOfBudget(Exception):
    """The submission's time budget ran out before or during the grader's own work for a check (its audit of the
    runs); the message says so, naming the checks that spent it."""
