"""A check's outcome in the student's checker: the share of its cases that passed, said as final grading says it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from capstone_check.located import SMALLEST, after_lead, sentence

RECOGNISED = "mistake recognised: "  # what a known mistake's sentence follows in a failed check's message
SHOWN_FAILURES = 3  # failures a message shows, the rest counted ("and 2 more failing cases")
SHOWN_WHEN_LOCATED = 1  # in a message led by where the output departs, which says the rest: one example
LONGEST = 300  # characters of a failing row's message (a smallest failing case, said last, aside)
SAW = "What the grader saw: "  # what a row led by another's step says before its own evidence


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def names(items) -> str:
    """``a``, ``a and b``, ``a, b and c``: how every message lists things."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def clauses(text: str) -> set[str]:
    """The clauses of four words or more of ``text``, numbers made alike: two failures that differ only in their
    numbers say the same thing."""
    parts = (NUMBER.sub("#", part.strip(" .;:").lower()) for part in re.split(r"(?<=[.;:])\s+", text))
    return {part for part in parts if len(part.split()) >= 4}


def failing_message(failures: list[str], note: str = "", statements=()) -> str:
    """A failing row's message within ``LONGEST`` characters: where its output departs (``statements``, as many as
    leave room for the rest), the ``note`` (a hint) and its first failures (``shown_failures``). The mistakes it
    recognises are said beside it, never in it."""
    first = "; ".join([note, failures[0]] if note else failures[:1])
    lead = sentence(statements, LONGEST - len(first) - 1)
    shown = shown_failures(failures, note, bool(lead), LONGEST - (len(lead) + 1 if lead else 0))
    return after_lead(lead, shown)


def shown_failures(failures: list[str], note: str = "", located: bool = False, room: int = LONGEST) -> str:
    """The ``note`` (a hint, said first) and the first failures as a message says them: the first always, then
    others while the whole stays within ``room`` characters, up to three (one in a message ``located``: led by where
    the output departs, which says the rest); those left out counted with their noun ("and 2 more failing cases").
    A hint that leaves no room for the first failure is said with their count alone: it says what they show."""
    more = more_failing(len(failures) - 1)
    if note and len("; ".join([note, failures[0]] if note else failures[:1]) + more) > room:
        count = failing_cases(len(failures))
        return f"{note}; {count}" if note else count
    at_most = SHOWN_WHEN_LOCATED if located else SHOWN_FAILURES
    kept, said = failures[:1], clauses(note) | clauses(failures[0])
    for failure in failures[1:]:
        longer = "; ".join([note, *kept, failure] if note else [*kept, failure])
        if len(kept) == at_most or len(longer) + len(more_failing(len(failures) - len(kept) - 1)) > room:
            break
        if not clauses(failure) & said:  # one that says a shown failure's thing again, numbers aside, is counted
            kept.append(failure)
            said |= clauses(failure)
    shown = "; ".join(([note] if note else []) + kept)
    return shown + more_failing(len(failures) - len(kept))


def failing_cases(count: int) -> str:
    """``count`` failing cases, said with their noun: "1 failing case", "3 failing cases"."""
    return f"{count} failing case{'s' * (count != 1)}"


def more_failing(count: int) -> str:
    """The failures a message leaves out, counted with their noun ("; and 3 more failing cases"); '' for none."""
    return f"; and {count} more failing case{'s' * (count != 1)}" if count > 0 else ""


@dataclass
class Verdict:
    """A check's outcome, the same class in final grading and in the students' checker: ``fraction`` of its points,
    a message for the student, and what each side reads beside it."""

    fraction: float
    message: str
    details: dict = field(default_factory=dict)  # final grading's: what the report and its figures show
    findings: list = field(default_factory=list)  # final grading's: the known mistakes recognised
    # (``autograder.findings.Finding``)
    located: list = field(default_factory=list)  # where the output differs: statements ``{"id", "text"}`` of
    # ``capstone_check.located`` (the report keeps them as ``autograder.findings.Located``)
    basis: bool | dict | None = None  # whether what the course's training runs use of the piece passes (per row
    # that builds on it, where their runs differ; None: as the verdict)
    remade: dict | None = None  # a training bar's: where the pieces first fail to remake the reference's own runs ({}
    # where they remake them; None where the kit cannot tell)
    by_kind: dict | None = None  # per kind of case (C's fresh runs: per true label), [how many right, how many]:
    # what a row that trusts this one and holds one case of each kind is predicted from
    aside: str = ""  # what the students' checker says beside the row: a prediction the public seeds leave open (never
    # final grading's)
    spread: list | None = None  # a share of cases drawn per seed that the public seeds leave open: the least and the
    # most share final grading's seeds may give (C's fresh runs: a kind of run labelled right on one seed, wrong on
    # another, counted wrong, then right)

    @classmethod
    def of(cls, failures: list[str], total: int, passed: str, note: str = "", findings=(), located=(),
           case: str = "", **details) -> Verdict:
        """Partial credit: the share of ``total`` cases that did not fail. The message is led by where the output
        differs (``located``: statements), then ``note`` (a hint or what did pass, not counted as a failure) and the
        first failures, as many as fit the row's length (``failing_message``); ``case``, the smallest failing case as
        a sentence, is said last. ``findings`` and ``located`` are kept only for a verdict that failed something."""
        if not failures:
            return cls(1.0, passed, details)
        statements = [{"id": s["id"], "text": s["text"]} for s in located]
        message = failing_message(failures, note, statements) + (f". {case}" if case else "")
        return cls(max(0.0, 1 - len(failures) / total), message, details, list(dict.fromkeys(findings)), statements)


def led(message: str, score: float, pieces: list[str]) -> str:
    """A failing row's ``message`` led by the rows it builds on that fail their own checks (``pieces``): fixing them
    is the next step, and the row's own message follows as what the grader saw, kept to the row's length. Final
    grading and the students' checker lead a row alike."""
    they = names(pieces)
    which = "which fails its check" if len(pieces) == 1 else "which fail their checks"
    lead = f"{'Not credited' if score <= 0 else 'Partly credited'}: this row builds on {they}, {which}. Fix {they} " \
           f"first. {SAW}"
    return lead + within(message, LONGEST - len(lead))


def within(evidence: str, room: int) -> str:
    """``evidence`` (a row's own message, its failures joined by "; ") kept to its first failure and as many of the
    next as fit ``room`` characters; "and more" says that some were left out. A first failure too long to fit loses
    its reasons (what follows its last ": ", then the one before) until it fits. A smallest failing case, said last,
    is kept whole (a row that shows one may be longer)."""
    if SMALLEST in evidence:
        return evidence
    parts = evidence.split("; ")
    first = parts[0]
    while len(first) + len("; and more") > room and ": " in first:
        first = first.rpartition(": ")[0]
    kept = [first]
    for part in parts[1:]:
        if len("; ".join([*kept, part])) + len("; and more") > room:
            return "; ".join(kept) + "; and more"
        kept.append(part)
    return "; ".join(kept)
