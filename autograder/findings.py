"""Known mistakes, named: each project keeps a catalogue of the wrong variants of its pieces (``mistakes.py`` beside
its checks), and a judge whose check fails compares the student's outputs with what each variant gives on the same
inputs. A match is a finding: a stable id and one sentence naming the mistake, never the corrected code.

The variants run in the grader's process only, on the grader's inputs; the students' kit receives their outputs on
the public inputs as values (``projects._shared.encode``), never their code.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from capstone_check.located import after_lead, sentence
from capstone_check.calls import flat
from capstone_check.values import decode, same  # noqa: F401 - the judges' comparison with mistakes, from here


class Finding(BaseModel):
    """A known mistake the grader recognised in a failed check: its id and the sentence that names it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # a check's child never builds one
    id: str
    text: str


class Located(Finding):
    """Where a failed check's output departs from the expected one, in the inputs' own terms
    (``capstone_check.located``): an id ``<check>.<feature or relation>`` and its sentence, which carries no value."""


def led_on_error(entry, check, partial: dict, ctx):
    """``entry`` (a report's row: the student's code raised) led by where its output had departed by then, when the
    check can say it from what it had collected (``Check.located_on_error``). The child's data is untrusted: when the
    check cannot read it, the row stands as it is."""
    try:
        said = [Located(**statement) for statement in check.located_on_error(partial, ctx)]
    except Exception:  # noqa: BLE001 - data of a form the check never sends: nothing is said
        return entry
    if not said:
        return entry
    return replace(entry, located=said, message=after_lead(sentence([s.model_dump() for s in said]), entry.message))


@dataclass(frozen=True)
class Mistake:
    """One known wrong variant of a piece.

    ``piece`` is the student function whose outputs it is matched on (None when the check matches it by other means,
    e.g. a configuration of the oracle's update); ``variant`` is what the check's judge computes it with: for a piece,
    a callable taking the piece's own arguments.
    """

    id: str
    check: str
    text: str
    piece: str | None = None
    variant: Any = None

    @property
    def finding(self) -> Finding:
        return Finding(id=self.id, text=self.text)


def catalogue(*mistakes: Mistake) -> dict[str, Mistake]:
    """The mistakes by id; an id given twice is the catalogue's bug."""
    found = {m.id: m for m in mistakes}
    if len(found) != len(mistakes):
        raise ValueError("a mistake id is listed twice")
    return found


def of_check(mistakes: dict[str, Mistake], check: str) -> list[Mistake]:
    return [m for m in mistakes.values() if m.check == check]


def of_piece(mistakes: dict[str, Mistake], piece: str) -> list[Mistake]:
    """The variants of one student function, whichever check they were catalogued under (a check that calls the
    piece on inputs of its own recognises them too)."""
    return [m for m in mistakes.values() if m.piece == piece and m.variant is not None]




def computed(variant: Callable, *args, **kwargs):
    """``variant(*args, **kwargs)``, or None when the variant cannot be computed on these inputs (it then matches
    nothing)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # a mistake's own NaN (the sample std of one reward) is the value it is matched on, not news to anyone
            warnings.simplefilter("ignore", RuntimeWarning)
            return variant(*args, **kwargs)
    except (ArithmeticError, ValueError, IndexError, TypeError):
        return None


def matched(mistakes: Iterable[Mistake], cases: list[tuple], got: list, tolerance: float = 1e-6) -> list[Finding]:
    """The findings of the ``mistakes`` (each a piece's variant) whose outputs on every one of ``cases`` (the piece's
    arguments) are the student's outputs ``got``."""
    found = []
    for mistake in mistakes:
        wants = [computed(mistake.variant, *args) for args in cases]
        if cases and all(w is not None and same(g, w, tolerance) for g, w in zip(got, wants)):
            found.append(mistake.finding)
    return found


def named(findings: Iterable[Finding]) -> str:
    """The findings as one clause of a message: their sentences, joined."""
    return "; ".join(f.text for f in findings)


def recorded_mistakes(spec: dict, mistakes: dict) -> dict:
    """``spec`` (a check of calls) with, on each call, the values each known mistake of its piece gives on its
    inputs, and the mistakes' sentences. A mistake is recorded only where it can be computed on every call of its
    piece."""
    recorded = {}
    for piece in {c["fn"] for c in spec["calls"] if "raises" not in c["out"]}:
        calls = [c for c in spec["calls"] if c["fn"] == piece and "raises" not in c["out"]]
        for mistake in of_piece(mistakes, piece):
            values = [computed(mistake.variant, *decode(c["args"]), **decode(c.get("kwargs", {}))) for c in calls]
            if any(v is None for v in values):
                continue
            for c, value in zip(calls, values):
                c.setdefault("mistakes", {})[mistake.id] = flat(value)
            recorded[mistake.id] = mistake.text
    return {**spec, "findings": {**spec.get("findings", {}), **recorded}} if recorded else spec
