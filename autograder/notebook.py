"""The autograder inside a notebook: a student's check cell calls ``grade_cell`` on the project folder beside it.

A check cell's last expression is the points it earned on the public seeds, the same check ``autograder check``
runs. Everything is printed to stdout, as a notebook shows it. The grading itself never runs in a notebook: nbgrader's
autograde grades outside any kernel (``autograder.nbautograde``), since a kernel runs the student's code, which can
redefine anything imported into it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.nbcells import points_text
from autograder.projects import PROJECTS
from autograder.report.model import CheckResult
from autograder.report.table import score_text


def project_of(check_id: str) -> str:
    project = check_id.split(".", 1)[0]
    if project not in PROJECTS or check_id not in PROJECTS[project].checks:
        raise ValueError(f"unknown check {check_id!r}")
    return project


def grade_cell(check_id: str, folder: str | Path = ".") -> float:
    """Run one check with the public seeds on the project folder (the notebook's own, by default); print its verdict;
    return its points."""
    project = project_of(check_id)
    folder = Path(folder).resolve()
    course = load_course(paths.course_file(start=folder, fallback=True), private=False)
    if not course.projects[project].checks[check_id].public:
        print(f"{check_id} runs at grading time only (it needs to know who you are): 0 points here")
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = grade(folder, course, seed_set="public", projects=[project], checks=[check_id]).report
    print(verdict(report.projects[project].checks[0], check_id, "public seeds"))
    return report.projects[project].checks[0].score


def graded_outside_the_notebook(check_id: str) -> float:
    """The hidden block's stand-in for ``grade_cell``: where a kernel runs a graded cell at all, it scores nothing."""
    project_of(check_id)
    print(f"{check_id} is graded by `nbgrader autograde` outside the notebook, with the course's grading seeds; run "
          "in a kernel it scores nothing. If this is an autograded notebook, the course's nbgrader_config.py does "
          "not use autograder.nbautograde.GradeChecks (see the kit's nbgrader_config.py).")
    return 0.0


# a check's outcome as the check cell says it
SAID = {"passed": "passed", "partial": "partly passed", "failed": "failed", "error": "failed"}


def verdict(result: CheckResult, check_id: str, which: str) -> str:
    """Two lines: the outcome and points of one check on ``which`` seeds, then its message."""
    return (f"{check_id} {SAID[result.outcome]} on the {which}: {score_text(result.score)} / "
            f"{points_text(result.max_score)}\n  {result.message}")
