"""A row final grading did not credit because a run did not follow from the student's pieces, said with the pieces
whose own checks fail in the same grading: the grader's findings, which a report on the grading seeds may show (it
quotes nothing the student's code printed). Grading names them once every check of the project is judged, and then
cuts each message to its length, once."""

from __future__ import annotations

from autograder.secrecy import first_departure


def with_failing_pieces(entries: list, builds_on: dict[str, tuple[str, ...]]) -> None:
    """Each departed row of ``entries`` (one project's report entries) names the pieces it builds on (``builds_on``:
    check id -> its ``Check.builds_on``) that fail their checks."""
    failing = {entry.id for entry in entries if not entry.passed}
    for entry in entries:
        if entry.passed or first_departure(entry.details or {}) is None:
            continue
        pieces = [cid for cid in builds_on.get(entry.id, ()) if cid in failing]
        if pieces:
            verb = "fails its check" if len(pieces) == 1 else "fail their checks"
            entry.message += f"; {', '.join(pieces)} {verb} here too: fix that first"


def said_once(entries: list, builds_on: dict[str, tuple[str, ...]], limit: int) -> None:
    """One project's judged entries as the report says them: departed rows with their failing pieces, then every
    message cut to ``limit`` characters."""
    with_failing_pieces(entries, builds_on)
    for entry in entries:
        entry.message = cut(entry.message, limit)


def cut(message: str, limit: int) -> str:
    """``message`` at most ``limit`` characters long, with a note saying how much was left out."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]} … (cut: {len(message) - limit} more characters)"
