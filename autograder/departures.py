"""A row final grading did not credit because a run did not follow from the student's pieces, said with the pieces
whose own checks fail in the same grading: the grader's findings, which a report on the grading seeds may show (it
quotes nothing the student's code printed)."""

from __future__ import annotations

from autograder.secrecy import first_departure


def builds_on(pid: str) -> dict[str, tuple[str, ...]]:
    """Check id -> the checks of the pieces its runs are made of (the students' kit says the same of its rows)."""
    from autograder.student_kit import final_grading

    return {cid: tuple(said.get("builds_on", ())) for cid, said in final_grading(pid).items()}


def with_failing_pieces(pid: str, entries: list) -> None:
    """Each departed row of ``entries`` (one project's report entries) names the pieces that fail their checks."""
    failing = {entry.id for entry in entries if not entry.passed}
    pieces_of = builds_on(pid)
    for entry in entries:
        if entry.passed or first_departure(entry.details or {}) is None:
            continue
        pieces = [cid for cid in pieces_of.get(entry.id, ()) if cid in failing]
        if pieces:
            verb = "fails its check" if len(pieces) == 1 else "fail their checks"
            entry.message += f"; {', '.join(pieces)} {verb} here too: fix that first"
