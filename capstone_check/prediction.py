"""What final grading will make of a run of this checker: each row's predicted points, and for a row final grading
credits on more than this kit checks (a replay against the reference, logs built at grading time), what it adds and
what the rows it builds on already say here."""

from __future__ import annotations

from capstone_check.verdict import RECOGNISED

LOST = "Predicted 0/"  # how a row lost through a row it builds on starts: the verdict, then the next step


def names(checks) -> str:
    checks = list(checks)
    return checks[0] if len(checks) == 1 else f"{', '.join(checks[:-1])} and {checks[-1]}"


def waiting(spec: dict, rows: dict, wanted: list[str]) -> bool:
    """Whether a row it builds on is still running (a row not asked for, with --checks, is waited on by no one)."""
    return any(cid in wanted and cid not in rows for cid in spec.get("builds_on", ()))


def holds(row, by: str) -> bool:
    """Whether what the course's training uses of ``row``'s piece passes, for the runs row ``by`` grades: the row
    passes, or its check found it fails only in what those runs do not use (``row.basis``, per row it builds for: a
    term every graded run sets to 0, a switch that only some row's runs flip)."""
    basis = row.basis.get(by) if isinstance(row.basis, dict) else row.basis
    return row.passed if basis is None else basis


def failing(spec: dict, rows: dict, by: str) -> list[str] | None:
    """The rows ``spec`` (row ``by``'s) builds on whose failure here reaches its runs; None when one of them was not
    run."""
    builds_on = spec.get("builds_on", ())
    if any(cid not in rows for cid in builds_on):
        return None
    return [cid for cid in builds_on if not holds(rows[cid], by)]


def aside(spec: dict, rows: dict, by: str) -> str:
    """The rows ``spec`` (row ``by``'s) builds on that fail here only in what its runs do not use, said as such."""
    spared = [cid for cid in spec.get("builds_on", ())
              if cid in rows and not rows[cid].passed and holds(rows[cid], by)]
    if not spared:
        return ""
    verb = "fails" if len(spared) == 1 else "fail"
    return f" as far as the training uses them: {names(spared)} {verb} only in what the course's runs do not use"


def predicted(row, spec: dict, rows: dict) -> float | None:
    """The points final grading will give ``row`` on the public seeds, as far as this kit can tell (None: a row it
    builds on was not run). A row left to final grading is predicted whole when everything it builds on passes."""
    failed = failing(spec, rows, row.check)
    if failed is None:
        return None
    if failed:
        return 0.0
    return foreseen(row, spec) if row.final_only else row.score


def foreseen(row, spec: dict) -> float:
    """A row left to final grading: whole, or the share its public evidence earns, as the row's credit counts it."""
    if row.foreseen is None:
        return row.points
    share = 0.0 if spec.get("credit") == "all_or_nothing" and row.foreseen < 1 else row.foreseen
    return round(row.points * share, 2)


def recognised(row) -> str:
    """The known mistakes the row's evidence names (said last in it), for a prediction that leaves the evidence out."""
    _, found, named = row.evidence.partition(RECOGNISED)
    return f"; {RECOGNISED}{named}" if found else ""


def said(row, spec: dict, rows: dict) -> str:
    """What final grading adds to ``row`` and what this run already tells of it ('' for a row it adds nothing to)."""
    if "adds" not in spec:
        return ""
    evidence = f"; {row.evidence}" if row.evidence else ""
    points = f"{row.points:g}"
    if not spec["builds_on"]:
        return f"{spec['adds']}{evidence} (predicted {foreseen(row, spec):g}/{points})"
    text = f"{spec['adds']} {names(spec['builds_on'])}"
    failed = failing(spec, rows, row.check)
    if failed is None:
        return f"{text}; run every check of {row.check[0]} to see whether they do"
    if failed:
        they, verb = names(failed), "fails" if len(failed) == 1 else "fail"
        return (f"{LOST}{points}: this row builds on {they}, which {verb} here. Fix {they} first. Why: {text}"
                f"{recognised(row)}")
    worth = f"{foreseen(row, spec):g}" if row.final_only else f"{row.score:g}"
    they = "it passes" if len(spec["builds_on"]) == 1 else "they pass"
    return f"{text}: {they} here{aside(spec, rows, row.check)}{evidence} (predicted {worth}/{points})"
