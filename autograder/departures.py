"""What a row says when a run it grades did not follow from the student's pieces (the proof of learning's verdict),
said once every check of the project is judged. Every message is cut to its length once, after the report is
redacted (``secrecy.redacted``), so a grading seed split by the cut cannot slip past the redaction.

A departed row's message has three parts: the verdict, the next step, then what the grader saw, led by ``SAW``. Once
every check is judged, grading may replace the first two (``with_failing_pieces``): when a piece the row builds on
fails its own check, fixing that piece is the next step. Each run's departure is a plain record (``Departure``: the
update, of how many, and how), which crosses from the audit's process as data and is said as a clause, ``at update U
of N, ...``, only where a message is written. The runs' departures are merged into one sentence, so a message says a
thing once, however many seeds and settings it grades. No clause names a flat index into the parameters or the
batch: a student cannot act on one. These are the grader's findings, which a report on the grading seeds may show
(they quote nothing the student's code printed).
"""

from __future__ import annotations

from typing import TypedDict

from capstone_check.verdict import SAW, led, names


class Departure(TypedDict):
    """Where one run left the reference's updates: ``update`` of ``of``, and ``how`` (a clause's end, which names no
    index a student cannot use). Plain data, so it crosses processes as it is."""

    update: int
    of: int
    how: str


def departure(exc, n_updates: int, tolerance: float, moment_tolerance: float = 0.0) -> Departure:
    """One run's departure: the update that did not follow from the one before, and how (``exc``: a ``Departed``)."""
    if exc.what == "actions":
        how = "an action was not the one your parameters sample with the grader's random numbers"
    elif exc.what == "initial weights":
        how = f"your initial weights were {exc.gap:.3g} away from the reference's (tolerance {tolerance:g})"
    elif exc.what == "moments":
        how = f"Adam's moments were {exc.gap:.3g} away from the reference's (tolerance {moment_tolerance:g})"
    else:
        how = f"your parameters were {exc.gap:.3g} away from the reference's update (tolerance {tolerance:g})"
    return Departure(update=exc.update, of=n_updates, how=how)


def clause(found: Departure) -> str:
    """A departure as a message says it: "at update 21 of 60, your parameters were ..."."""
    return f"at update {found['update']} of {found['of']}, {found['how']}"


def departed_update(found: Departure | None) -> int | None:
    """The update a departure names, or None where the run did not depart."""
    return found["update"] if found else None


def seen(failures: list[tuple[str, Departure]], runs: int) -> str:
    """What the grader saw of ``runs`` runs, ``failures`` the (run as a message names it, its departure) of those
    that departed, in order: one sentence, with the first run's clause in full and the others' updates."""
    (label, first), *_ = failures
    updates, n_updates, how = [found["update"] for _, found in failures], first["of"], first["how"]
    if runs == 1:
        return f"{SAW}{clause(first)}."
    share = f"all {runs} runs" if len(failures) == runs else f"{len(failures)} of {runs} runs"
    if len(set(updates)) == 1:
        return f"{SAW}{share} left the reference's updates at update {updates[0]} of {n_updates}; in {label}, {how}."
    return (f"{SAW}{share} left the reference's updates. In {label}, at update {updates[0]} of {n_updates}, {how}; "
            f"the others left at update {names(map(str, updates[1:]))}.")


def departed_message(verdict: str, step: str, failures: list[tuple[str, Departure]], runs: int) -> str:
    """A departed row's message: its verdict, its next step, then what the grader saw."""
    return f"{verdict} {step} {seen(failures, runs)}"


def led_by_pieces(entry, pieces: list[str]) -> str:
    """``entry``'s message (a failing row's) led by the pieces it builds on that fail their own checks: fixing them
    is the next step. A departed row's own verdict and step give way to it; any other row's message follows whole, as
    what the grader saw, led as the students' checker leads the same row (``capstone_check.verdict.led``)."""
    _, marked, evidence = entry.message.partition(SAW)
    if marked and first_departure(entry.details or {}) is not None:
        they = names(pieces)
        verb = "fails its check" if len(pieces) == 1 else "fail their checks"
        return f"Not credited: these runs are made by your pieces, and {they} {verb}. Fix {they} first. {SAW}{evidence}"
    return led(entry.message, entry.score, pieces)


def first_departure(details: dict) -> int | None:
    """The first update the grader's replay found not to follow from the student's pieces (B: of its first such
    run; A.bar: per seed), else None."""
    if "departed_update" in details:
        found = details["departed_update"]
    else:
        per_seed = details.get("departed")
        found = next((u for u in per_seed if u is not None), None) if isinstance(per_seed, list) else None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def with_failing_pieces(entries: list, builds_on: dict[str, tuple[str, ...]]) -> None:
    """Each judged failing row of ``entries`` (one project's report entries) is led by the pieces it builds on
    (``builds_on``: check id -> its ``Check.builds_on``) that fail their checks: fixing them is its next step."""
    failing = {entry.id for entry in entries if not entry.passed}
    for entry in entries:
        if entry.passed or entry.status is not None:
            continue
        pieces = [cid for cid in builds_on.get(entry.id, ()) if cid in failing]
        if pieces:
            entry.message = led_by_pieces(entry, pieces)


def cut(message: str, limit: int) -> str:
    """``message`` at most ``limit`` characters long, with a note saying how much was left out."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]} … (cut: {len(message) - limit} more characters)"
