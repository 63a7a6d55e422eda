"""How a check's run ended: the one vocabulary of the sandbox, the report, grade-all and the pages.

``OK`` is the one status with data to judge; every other is a check that got no verdict, and is what the report's
``details.status`` holds for it (docs/report-schema.md lists them). A ``Status`` is a ``str``: it compares equal to,
prints as and is written to JSON as its value.
"""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    OK = "ok"  # the child handed back data: the judge gives the verdict
    STUDENT_ERROR = "student_error"  # the student's code raised, or returned what the contract does not allow
    TIMEOUT = "timeout"  # the child passed its wall-time limit (or the submission's time ran out)
    MEMORY = "memory"  # the child passed its memory limit
    CRASHED = "crashed"  # the child died without a usable result
    MALFORMED = "malformed"  # the child's data was not in the shape the judge reads
    INTERNAL_ERROR = "internal_error"  # the grader failed, never the student
    STOPPED = "stopped"  # grading was interrupted before the check finished

    def __str__(self) -> str:
        return self.value


# What a check's child may write in its result file; the parent says every other status itself.
CHILD_STATUSES = frozenset({Status.OK, Status.STUDENT_ERROR, Status.MEMORY, Status.INTERNAL_ERROR})
