"""The TA's view: a submission and the reference graded on the same seeds, side by side, in one HTML page
(``templates/compare.html``)."""

from __future__ import annotations

from pathlib import Path

from autograder.report.html import SHOWN
from autograder.report.model import CheckResult, Report
from autograder.report.pages import render


def numbers(value, depth: int = 0) -> str:
    """A compact rendering of the numbers in a check's details (long series are summarized, not dumped)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        if len(value) > 12 or depth > 1:
            return f"[{len(value)} values]"
        return "[" + ", ".join(numbers(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {numbers(v, depth + 1)}" for k, v in value.items())
    return str(value)[:80]


def _shown_details(check: CheckResult) -> list[tuple[str, str]]:
    """A check's details as (name, numbers) lines, its status left out."""
    return [(k, numbers(v)) for k, v in check.details.items() if k != "status"]


def _rows(student: Report, reference: Report, pid: str, course) -> list[dict]:
    ref_checks = {c.id: c for c in reference.projects[pid].checks} if pid in reference.projects else {}
    return [{"check": check, "reference": ref_checks.get(check.id),
             "bar": [(str(k), numbers(v)) for k, v in course.projects[pid].checks[check.id].bar.items()]}
            for check in student.projects[pid].checks]


def write_compare(student: Report, reference: Report, figures: dict, course, path: Path) -> Path:
    """``figures`` maps project id -> [(caption, png)] drawn with both runs overlaid."""
    sections = [{"pid": pid, "project": section, "rows": _rows(student, reference, pid, course),
                 "reference_score": reference.project_score(pid), "figures": figures.get(pid, [])}
                for pid, section in student.projects.items()]
    page = render("compare.html", styles=["page.css", "compare.css"], student=student, reference=reference,
                  sections=sections, shown=SHOWN, details=_shown_details)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
