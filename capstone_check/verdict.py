"""A check's outcome in the student's checker: the share of its cases that passed, said as final grading says it."""

from __future__ import annotations

from dataclasses import dataclass, field

RECOGNISED = "mistake recognised: "  # what a known mistake's sentence follows in a failed check's message
SHOWN_FAILURES = 3  # failures a message shows, the rest counted ("and 2 more")
SHOWN_WHEN_LOCATED = 1  # in a message led by where the output departs, which says the rest: one example


@dataclass
class Verdict:
    fraction: float
    message: str
    details: dict = field(default_factory=dict)
    basis: bool | dict | None = None  # whether what the course's training runs use of the piece passes (per row
    # that builds on it, where their runs differ; None: as the verdict)

    @classmethod
    def of(cls, failures: list[str], total: int, passed: str, note: str = "", located: bool = False) -> Verdict:
        """The share of ``total`` cases that did not fail; the first failures as the message (one only when the
        message is to be ``located``: led by where the output departs)."""
        if not failures:
            return cls(1.0, passed)
        at_most = SHOWN_WHEN_LOCATED if located else SHOWN_FAILURES
        shown = "; ".join(([note] if note else []) + failures[:at_most])
        shown += f"; and {len(failures) - at_most} more" if len(failures) > at_most else ""
        return cls(max(0.0, 1 - len(failures) / total), shown)
