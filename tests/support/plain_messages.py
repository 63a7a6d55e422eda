"""What a failing row's message must be for a student to act on it: when a row it builds on fails in the same grading,
led by that row (the next step) in its first sentence; at most ``LONGEST`` characters unless it shows its smallest
failing case; and each thing said once. ``longest_array`` counts the numbers of the longest
array a message prints (benchmarks/mutant_feedback.py reports the rows over 8)."""

from __future__ import annotations

import re

from capstone_check.located import SMALLEST
from capstone_check.verdict import LONGEST

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


ARRAY_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")
SHOWN_AT_MOST = 8  # numbers of one array a message may print


def bracketed(message: str) -> list[str]:
    """The outermost [...] spans of ``message`` (numpy prints an array, nested rows included, as one)."""
    spans, depth, start = [], 0, 0
    for i, char in enumerate(message):
        if char == "[":
            start = i if depth == 0 else start
            depth += 1
        elif char == "]" and depth:
            depth -= 1
            if depth == 0:
                spans.append(message[start:i + 1])
    return spans


def longest_array(message: str) -> int:
    """How many numbers the longest array printed in ``message`` holds."""
    return max((len(ARRAY_NUMBER.findall(span)) for span in bracketed(message)), default=0)


def clauses(message: str) -> list[str]:
    """The message's clauses, numbers made alike: a sentence said once per seed differs only in its numbers."""
    return [NUMBER.sub("#", part.strip(" .;:").lower()) for part in re.split(r"(?<=[.;:])\s+", message)]


def repeated(message: str) -> list[str]:
    """The clauses of four words or more that the message says twice or more."""
    seen, twice = set(), []
    for clause in clauses(message):
        if len(clause.split()) >= 4 and clause in seen:
            twice.append(clause)
        seen.add(clause)
    return twice


def first_sentence(message: str) -> str:
    return re.split(r"(?<=\.)\s", message, maxsplit=1)[0]


def unplain(row: dict, rows: dict[str, dict], builds_on: tuple[str, ...]) -> list[str]:
    """What is wrong with failing ``row``'s message, graded beside ``rows`` (id: row) of the same grading; ``builds_on``
    the rows it builds on."""
    message, wrong = row["message"], []
    failing = [cid for cid in builds_on if cid in rows and not rows[cid]["passed"]]
    judged = "status" not in (row.get("details") or {})
    if failing and judged and not any(cid in first_sentence(message) for cid in failing):
        wrong.append(f"its first sentence names none of {failing}, which fail")
    if len(message) > LONGEST and SMALLEST not in message:
        wrong.append(f"{len(message)} characters")
    wrong += [f"said twice: {clause}" for clause in repeated(message)]
    return wrong
