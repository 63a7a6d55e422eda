"""What a student may never read: the grading seeds and the course secret, struck from every text a report holds.

Judges name grading seeds only by count (``Context.seeds_shown``), but student code is handed the seeds it is graded
on (``train(..., seed)``, a generator made from one) and may print one in an exception, a label or a file name that a
message repeats. So every string of a report graded with the grading seeds passes through ``redact`` before any view
(table, HTML, Gradescope, nbgrader) sees it. Numbers are left alone: a value the student's code returns is shown back
as found, and what such a value encodes is beyond any filter (see the README's security model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

SEED_MARK = "‹grading seed›"
SECRET_MARK = "‹course secret›"


@dataclass(frozen=True)
class Hidden:
    """The values to strike: grading seeds that are not also public, and the course secret."""

    seeds: tuple[int, ...] = ()
    secret: str | None = None

    @classmethod
    def of(cls, course, seed_set: str) -> "Hidden":
        seeds = set(course.seeds.grading) - set(course.seeds.public) if seed_set == "grading" else set()
        return cls(tuple(sorted(seeds, reverse=True)), course.secret)

    @cached_property
    def pattern(self) -> re.Pattern | None:
        # a seed only as a whole number: 4711 in "seed 4711" or "4711.0", never inside 14711 or 0.4711
        words = [rf"(?<![\d.]){seed}(?!\d)" for seed in self.seeds]
        return re.compile("|".join(words)) if words else None


def redact_text(text: str, hidden: Hidden) -> str:
    if hidden.secret:
        text = text.replace(hidden.secret, SECRET_MARK)
    return hidden.pattern.sub(SEED_MARK, text) if hidden.pattern else text


def redact(value, hidden: Hidden):
    """``value`` (plain data: dicts, lists, strings, numbers) with every hidden value struck from its strings."""
    if not hidden.seeds and not hidden.secret:
        return value
    if isinstance(value, str):
        return redact_text(value, hidden)
    if isinstance(value, dict):
        return {redact(key, hidden): redact(item, hidden) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item, hidden) for item in value]
    return value
