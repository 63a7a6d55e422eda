"""The TA's view: a submission and the reference graded on the same seeds, side by side, in one HTML page."""

from __future__ import annotations

import html
from pathlib import Path

from autograder.report.html import SHOWN, STYLE, figure_html, text_html
from autograder.report.model import CheckResult, Report
from autograder.report.table import score_text


# Fixed columns: the bar's column takes a quarter, the two runs share the rest, and long values wrap inside their
# cell (a long bar value used to widen its column until the submission column was cut off).
COMPARE_STYLE = """
table.compare { table-layout: fixed; } col.bar { width: 26%; }
.numbers { color: #555; font-size: 0.85rem; margin-top: 0.3rem; }
"""


def _numbers(value, depth: int = 0) -> str:
    """A compact rendering of the numbers in a check's details (long series are summarized, not dumped)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        if len(value) > 12 or depth > 1:
            return f"[{len(value)} values]"
        return "[" + ", ".join(_numbers(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_numbers(v, depth + 1)}" for k, v in value.items())
    return html.escape(str(value))[:80]


def _cell(check: CheckResult) -> str:
    css = SHOWN[check.outcome][0]
    numbers = "".join(f"<div><code>{html.escape(k)}</code> {_numbers(v)}</div>" for k, v in check.details.items()
                      if k != "status")
    return (f"<td><b class='{css}'>{score_text(check.score)} / {score_text(check.max_score)}</b><br>"
            f"{text_html(check.message)}"
            f"<div class='numbers'>{numbers}</div></td>")


def _bar(bar: dict) -> str:
    return "<br>".join(f"<code>{html.escape(str(k))}</code> = {html.escape(_numbers(v))}" for k, v in bar.items())


def write_compare(student: Report, reference: Report, figures: dict, course, path: Path) -> Path:
    """``figures`` maps project id -> [(caption, png)] drawn with both runs overlaid."""
    sections = []
    for pid, section in student.projects.items():
        ref_checks = {c.id: c for c in reference.projects[pid].checks} if pid in reference.projects else {}
        rows = []
        for check in section.checks:
            theirs = ref_checks.get(check.id)
            bar = course.projects[pid].checks[check.id].bar
            rows.append(f"<tr><td><span class='id'>{html.escape(check.id)}</span><br><small>{_bar(bar)}</small></td>"
                        f"{_cell(check)}{_cell(theirs) if theirs else '<td>not graded</td>'}</tr>")
        images = "".join(figure_html(c, p) for c, p in figures.get(pid, []))
        sections.append(
            f"<h2>Project {pid}: {score_text(section.score)} / {score_text(section.max_score)} "
            f"(reference {score_text(reference.project_score(pid))})</h2><table class='compare'>"
            f"<colgroup><col class='bar'>"
            f"<col><col></colgroup><tr><th>check and bar</th><th>submission</th><th>reference</th></tr>"
            f"{''.join(rows)}</table>{images}")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Compare {html.escape(student.submission)}"
            f"</title><style>{STYLE}{COMPARE_STYLE}</style>"
            f"</head><body><h1>Submission against the reference</h1><p><code>{html.escape(student.submission)}"
            f"</code> and the reference, graded on the same {student.seeds} seeds: {score_text(student.score)} against "
            f"{score_text(reference.score)} of {score_text(student.max_score)}.</p>{''.join(sections)}</body></html>\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
