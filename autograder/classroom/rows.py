"""A student's row: what happened to them in a class run, and grades.csv, which holds every row."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.report import Report, score_text


@dataclass
class Row:
    student: str
    status: str  # see ``what_happened``; "no submission (...)" and "error: ..." when there is no report
    report: Report | None


# What went wrong in a report, worst first: (status, does this check (a CheckResult) show it)
PROBLEMS = [
    ("does not compile", lambda c: c.kind == "syntax"),
    ("timed out", lambda c: c.status == "timeout"),
    ("crashed", lambda c: c.status in ("crashed", "memory") or (c.status == "student_error" and c.kind == "import")),
]


def what_happened(report: Report) -> str:
    """"" for a report whose every check ran to a verdict; else each problem with what it hit, worst first:
    ``does not compile: D`` (a project whose modules do not compile: every check), ``timed out: D.k_sweep``,
    ``crashed: A.bar`` (killed, out of memory, exited, or the module failed at import)."""
    said = []
    for status, shows in PROBLEMS:
        hit = []
        for pid, project in report.projects.items():
            failed = [c.id for c in project.checks if c.outcome == "error" and shows(c)]
            if failed and any(c.kind for c in project.checks if c.id in failed):
                hit.append(pid)  # at import: the whole project, named once
            else:
                hit += failed
        if hit:
            said.append(f"{status}: {', '.join(hit)}")
    return "; ".join(said)


def write_grades(rows: list[Row], course: Course, path: Path, projects: list[str] | None = None) -> None:
    """grades.csv: a column per graded project, the total, the maximum of those projects and the status."""
    projects = projects or list(course.projects)
    with open(path.with_name(path.name + ".partial"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *projects, "total", "max", "status"])
        maximum = sum(c.points for p in projects for c in course.projects[p].checks.values())
        for row in sorted(rows, key=lambda r: r.student):
            scores = [row.report.project_score(p) if row.report else 0.0 for p in projects]
            writer.writerow([row.student, *map(score_text, scores), score_text(sum(scores)), score_text(maximum),
                             row.status])
    os.replace(path.with_name(path.name + ".partial"), path)
