"""A student's row: what happened to them in a class run, and grades.csv, which holds every row.

A row keeps what happened as data: the student's ``state`` (graded, unchanged, no submission, ...), the ``problems``
their report shows (each a kind of problem and the checks or projects it hit) and, for a student without a report,
the ``reason``. Its ``status`` is that data in the words grades.csv and the class summary show; nothing reads the
words back.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from autograder.config import Course
from autograder.report import Report, score_text
from autograder.report.model import CheckResult
from autograder.status import Status

# A student's state after a class run: graded (for the first time, or again), unchanged since their kept report, or
# without a report: no submission of the graded projects, the grader failed on them ("error"), or their grading took
# down a cluster's worker too often ("crashed").
State = Literal["graded", "regraded", "unchanged", "no submission", "error", "crashed"]

ProblemName = Literal["does not compile", "timed out", "crashed"]

# How a check (a CheckResult that got no verdict) shows each kind of problem, worst first.
SHOWS: dict[ProblemName, Callable[[CheckResult], bool]] = {
    "does not compile": lambda c: c.kind == "syntax",
    "timed out": lambda c: c.status == Status.TIMEOUT,
    "crashed": lambda c: c.status in (Status.CRASHED, Status.MEMORY)
    or (c.status == Status.STUDENT_ERROR and c.kind == "import"),
}


@dataclass(frozen=True)
class Problem:
    """One kind of problem in a report and what it hit: check ids, or a project's id where its modules failed at
    import (then every check of the project shows it, and the project is named once)."""

    name: ProblemName
    hit: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}: {', '.join(self.hit)}"


def problems_in(report: Report) -> list[Problem]:
    """The problems of a report, worst first; none for a report whose every check ran to a verdict. ``does not
    compile`` (a project whose modules do not compile), ``timed out``, ``crashed`` (killed, out of memory, exited,
    or the module failed at import)."""
    found = []
    for name, shows in SHOWS.items():
        hit = []
        for pid, project in report.projects.items():
            failed = [c.id for c in project.checks if c.outcome == "error" and shows(c)]
            if failed and any(c.kind for c in project.checks if c.id in failed):
                hit.append(pid)  # at import: the whole project, named once
            else:
                hit += failed
        if hit:
            found.append(Problem(name, tuple(hit)))
    return found


@dataclass
class Row:
    student: str
    state: State
    report: Report | None = None
    problems: list[Problem] = field(default_factory=list)  # those of ``report``, worst first
    reason: str = ""  # without a report: what was expected and found, or what failed

    @property
    def status(self) -> str:
        """The row in words, as grades.csv's status column and the class summary say it: ``graded``, ``unchanged
        (timed out: D.k_sweep)``, ``does not compile: D; crashed: A.bar``, ``no submission (expected D_grpo/; found
        nothing)``, ``error: ...``."""
        problems = "; ".join(map(str, self.problems))
        if self.state == "no submission":
            return f"no submission ({self.reason})"
        if self.state in ("error", "crashed"):
            return f"{self.state}: {self.reason}"
        if self.state == "unchanged":
            return f"unchanged ({problems})" if problems else "unchanged"
        return problems or self.state

    @property
    def headline(self) -> str:
        """What the closing count of a class run counts the row as: a freshly graded student's worst problem, else
        their state."""
        if self.state in ("graded", "regraded") and self.problems:
            return self.problems[0].name
        return self.state


def graded_row(student: str, state: State, report: Report) -> Row:
    """The row of a student with a report (graded, regraded or unchanged), with the problems it shows."""
    return Row(student, state, report, problems_in(report))


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
