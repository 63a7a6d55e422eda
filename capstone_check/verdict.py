"""A check's outcome in the student's checker: the share of its cases that passed, said as final grading says it."""

from __future__ import annotations

from dataclasses import dataclass, field

RECOGNISED = "mistake recognised: "  # what a known mistake's sentence follows in a failed check's message


@dataclass
class Verdict:
    fraction: float
    message: str
    details: dict = field(default_factory=dict)
    basis: bool | dict | None = None  # whether what the course's training runs use of the piece passes (per row
    # that builds on it, where their runs differ; None: as the verdict)

    @classmethod
    def of(cls, failures: list[str], total: int, passed: str, note: str = "") -> Verdict:
        """The share of ``total`` cases that did not fail; the first failures as the message."""
        if not failures:
            return cls(1.0, passed)
        shown = "; ".join(([note] if note else []) + failures[:3])
        shown += f"; and {len(failures) - 3} more" if len(failures) > 3 else ""
        return cls(max(0.0, 1 - len(failures) / total), shown)
