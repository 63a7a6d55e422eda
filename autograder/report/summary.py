"""The class summary page (``templates/summary.html``): each project's score distribution and each check's pass rate,
as plots and a table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from autograder.report.class_findings import findings_section
from autograder.report.figures import figure, png
from autograder.report.model import Report
from autograder.report.pages import render


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


def link_similarity(path: Path) -> None:
    """Add the link to similarity.html (beside it) to a summary page written before the report was."""
    page = path.read_text(encoding="utf-8")
    if "id='similarity'" not in page and "</h1>" in page:
        link = render("similarity_link.html").rstrip("\n")
        path.write_text(page.replace("</h1>", "</h1>" + link, 1), encoding="utf-8")


def write_summary(rows, course, path: Path, projects: list[str] | None = None) -> Path:
    """``rows`` are classroom Rows; students without a report count as absent, not as zeros, in the plots.
    ``projects`` are the projects the class was graded on (default: all of the course's): only they are shown."""
    projects = projects or list(course.projects)
    reports = [Report(row.report.submission, row.report.seeds,
                      {p: s for p, s in row.report.projects.items() if p in projects})
               for row in rows if row.report]
    maxima = {pid: sum(c.points for c in course.projects[pid].checks.values()) for pid in projects}
    figures, hardest, mistakes = [], [], {}
    if reports:
        ids, rates = _pass_rates(reports)
        figures = [("Score distribution per project", _histograms(reports, projects, maxima)),
                   ("Pass rate per check (lowest: what most students missed)", _pass_rate_plot(ids, rates))]
        hardest = sorted(zip(rates, ids))
        mistakes = findings_section(rows, path.parent)
    page = render("summary.html", styles=["page.css"], students=len(rows), graded=len(reports), projects=projects,
                  points=sum(maxima.values()), similarity=(path.parent / "similarity.html").is_file(),
                  figures=figures, hardest=hardest, others=[row for row in rows if not row.report], **mistakes)
    path.write_text(page, encoding="utf-8")
    return path
