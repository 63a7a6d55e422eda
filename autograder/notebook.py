"""The autograder inside a notebook: nbgrader's test cells call ``grade_cell`` on the project folder beside them.

A test cell's last expression is the points it earned, which nbgrader reads as partial credit, so a notebook graded by
``nbgrader autograde`` scores exactly what ``autograder grade`` scores: the same check, run the same way. Everything is
printed to stdout: nbgrader gives a test cell zero points for any output on stderr.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from autograder.config import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS


def _project_of(check_id: str) -> str:
    project = check_id.split(".", 1)[0]
    if project not in PROJECTS or check_id not in PROJECTS[project].checks:
        raise ValueError(f"unknown check {check_id!r}")
    return project


def student_of(folder: Path) -> str | None:
    """The student id in nbgrader's layout (``.../autograded/<student>/<assignment>/`` or ``submitted/``), else None."""
    parts = folder.parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i - 1] in ("autograded", "submitted"):
            return parts[i]
    return None


def grade_cell(check_id: str, seeds: str = "public", folder: str | Path = ".") -> float:
    """Run one check on the project folder (the notebook's own, by default); print its verdict; return its points.

    ``seeds="grading"`` is for hidden test cells: the seeds come from the instructor's private overlay
    ($AUTOGRADER_PRIVATE or course.private.yml), and are never printed.
    """
    project = _project_of(check_id)
    if seeds == "public" and not load_course().projects[project].checks[check_id].public:
        print(f"{check_id} runs at grading time only (it needs to know who you are): 0 points here")
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        course = load_course()
        folder = Path(folder).resolve()
        report = grade(folder, course, seed_set=seeds, projects=[project], checks=[check_id],
                       student=student_of(folder)).report
    result = report["projects"][project]["checks"][0]
    which = "public seeds" if seeds == "public" else "grading seeds"
    status = "passed" if result["passed"] else ("partly passed" if result["score"] > 0 else "failed")
    print(f"{check_id} {status} on the {which}: {result['score']:g} / {result['max_score']:g} points")
    print(f"  {result['message']}")
    if seeds == "grading" and course.private_overlay is None:
        print("  (note: graded with the kit's placeholder grading seeds; the instructor's overlay was not found)")
    return result["score"]
