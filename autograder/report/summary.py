"""The class summary page: each project's score distribution and each check's pass rate, as plots and a table."""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np

from autograder.report.class_findings import findings_section
from autograder.report.figures import figure, png
from autograder.report.html import STYLE
from autograder.report.model import Report
from autograder.report.table import score_text


def _histograms(reports: list[Report], projects: list[str], maxima: dict[str, float]) -> bytes:
    fig, axes = figure(3.2 * len(projects), 2.8)
    fig.clear()
    for i, pid in enumerate(projects):
        ax = fig.add_subplot(1, len(projects), i + 1)
        scores = [r.project_score(pid) for r in reports]
        ax.hist(scores, bins=np.linspace(0, maxima[pid], 11), color="tab:blue", edgecolor="white")
        ax.set(title=f"Project {pid}", xlabel="score", ylabel="students" if i == 0 else None)
        ax.yaxis.get_major_locator().set_params(integer=True)
    return png(fig)


def _pass_rates(reports: list[Report]) -> tuple[list[str], list[float]]:
    ids = list(dict.fromkeys(c.id for r in reports for c in r.checks()))
    rates = []
    for check_id in ids:
        results = [c.passed for r in reports for c in r.checks() if c.id == check_id]
        rates.append(float(np.mean(results)) if results else 0.0)
    return ids, rates


def _pass_rate_plot(ids: list[str], rates: list[float]) -> bytes:
    fig, ax = figure(6.4, 0.3 * len(ids) + 1.2)
    ax.barh(ids[::-1], rates[::-1], color="tab:green")
    ax.set(xlim=(0, 1), xlabel="share of students who passed the check")
    return png(fig)


SIMILARITY_LINK = ("<p class='note' id='similarity'>Staff only: <a href='similarity.html'>the similarity report</a> "
                   "(pairs of submissions ranked by shared code, side by side).</p>")


def link_similarity(path: Path) -> None:
    """Add the link to similarity.html (beside it) to a summary page written before the report was."""
    page = path.read_text(encoding="utf-8")
    if "id='similarity'" not in page and "</h1>" in page:
        path.write_text(page.replace("</h1>", "</h1>" + SIMILARITY_LINK, 1), encoding="utf-8")


def write_summary(rows, course, path: Path, projects: list[str] | None = None) -> Path:
    """``rows`` are classroom Rows; students without a report count as absent, not as zeros, in the plots.
    ``projects`` are the projects the class was graded on (default: all of the course's): only they are shown."""
    projects = projects or list(course.projects)
    reports = [Report(row.report.submission, row.report.seeds,
                      {p: s for p, s in row.report.projects.items() if p in projects})
               for row in rows if row.report]
    maxima = {pid: sum(c.points for c in course.projects[pid].checks.values()) for pid in projects}
    body = [f"<h1>Class summary</h1><p>{len(rows)} students, {len(reports)} graded, on project"
            f"{'s' if len(projects) > 1 else ''} {', '.join(projects)} "
            f"(out of {score_text(sum(maxima.values()))} points).</p>"]
    if (path.parent / "similarity.html").is_file():
        body.insert(1, SIMILARITY_LINK)
    if reports:
        ids, rates = _pass_rates(reports)
        for caption, image in [("Score distribution per project", _histograms(reports, projects, maxima)),
                               ("Pass rate per check (lowest: what most students missed)",
                                _pass_rate_plot(ids, rates))]:
            body.append(f"<figure><img alt='{caption}' src='data:image/png;base64,{base64.b64encode(image).decode()}'>"
                        f"<figcaption>{caption}</figcaption></figure>")
        hardest = sorted(zip(rates, ids))
        body.append("<table><tr><th>check</th><th>passed by</th></tr>" + "".join(
            f"<tr><td class='id'>{html.escape(i)}</td><td>{r:.0%}</td></tr>" for r, i in hardest) + "</table>")
        body.append(findings_section(rows, path.parent))
    others = [row for row in rows if not row.report]
    if others:
        body.append("<h2>Not graded</h2><table>" + "".join(
            f"<tr><td>{html.escape(r.student)}</td><td>{html.escape(r.status)}</td></tr>" for r in others) + "</table>")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Class summary</title><style>{STYLE}</style>"
            f"</head><body>{''.join(body)}</body></html>\n")
    path.write_text(page, encoding="utf-8")
    return path
