"""What one grading run keeps for the grader's own work on its checks: the submission's time budget, and what a check's
``on_shard`` prepares for its ``judge`` (the bars' early audits, ``projects/_shared/audits.py``). Grading makes one per
submission and hands it to ``on_shard`` and ``judge`` in their context (``Context.grading``); the child never sees it,
and a check judged alone is handed none."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from autograder.submission_budget import SubmissionBudget


@dataclass
class GradingRun:
    budget: SubmissionBudget | None = None  # None: the grader's work is charged to no budget
    kept: dict = field(default_factory=dict)  # what on_shard left for the judge, by a key of the work's exact input
    lock: threading.Lock = field(default_factory=threading.Lock)
