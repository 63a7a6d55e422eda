"""The autograder inside a notebook: nbgrader's test cells call ``grade_cell`` on the project folder beside them.

A test cell's last expression is the points it earned, which nbgrader reads as partial credit, so a notebook graded by
``nbgrader autograde`` scores exactly what ``autograder grade`` scores: the same check, run the same way. Everything is
printed to stdout: nbgrader gives a test cell zero points for any output on stderr.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

from autograder import paths
from autograder.config import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from autograder.report.model import CheckResult
from autograder.report.table import score_text


def _project_of(check_id: str) -> str:
    project = check_id.split(".", 1)[0]
    if project not in PROJECTS or check_id not in PROJECTS[project].checks:
        raise ValueError(f"unknown check {check_id!r}")
    return project


def _course_of(folder: Path) -> Path:
    """The course file of the course folder at or above the project folder (nbgrader's course, or the kit's
    checkout); a student's folder outside any course checks with the kit's bundled course."""
    return paths.course_file(start=folder, fallback=True)


def student_of(folder: Path) -> str | None:
    """The student id in nbgrader's layout (``.../autograded/<student>/<assignment>/`` or ``submitted/``), else None."""
    parts = folder.parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i - 1] in ("autograded", "submitted"):
            return parts[i]
    return None


def grade_cell(check_id: str, seeds: str = "public", folder: str | Path = ".") -> float:
    """Run one check on the project folder (the notebook's own, by default); print its verdict; return its points.

    ``seeds="grading"`` is for hidden test cells: the check runs in a separate grader process that reads the seeds
    from the instructor's private overlay ($AUTOGRADER_PRIVATE or course.private.yml) itself and hands back only the
    verdict, so the notebook's kernel, which runs the student's code, never holds a grading seed or the secret.
    """
    project = _project_of(check_id)
    folder = Path(folder).resolve()
    if seeds == "grading":
        return _grade_elsewhere(check_id, folder)
    course = load_course(_course_of(folder))
    if not course.projects[project].checks[check_id].public:
        print(f"{check_id} runs at grading time only (it needs to know who you are): 0 points here")
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = grade(folder, course, seed_set="public", projects=[project], checks=[check_id]).report
    _print_verdict(report.projects[project].checks[0], check_id, "public seeds")
    return report.projects[project].checks[0].score


# a check's outcome as the check cell says it
SAID = {"passed": "passed", "partial": "partly passed", "failed": "failed", "error": "failed"}


def _print_verdict(result: CheckResult, check_id: str, which: str) -> None:
    print(f"{check_id} {SAID[result.outcome]} on the {which}: {score_text(result.score)} / "
          f"{score_text(result.max_score)} points")
    print(f"  {result.message}")


def _grade_elsewhere(check_id: str, folder: Path) -> float:
    """The hidden block's grading, in a child Python that prints the verdict and, last, a line with the points."""
    done = subprocess.run([sys.executable, "-m", "autograder.notebook", check_id, str(folder)],
                          capture_output=True, text=True, check=False)
    lines = done.stdout.rstrip("\n").splitlines()
    if done.returncode != 0 or not lines or not lines[-1].startswith(_POINTS):
        print(f"{check_id}: the grader could not run this check (exit status {done.returncode}); please tell the "
              "instructor")
        return 0.0
    print("\n".join(lines[:-1]))
    return float(lines[-1][len(_POINTS):])


_POINTS = "points: "


def main(check_id: str, folder: str) -> None:
    """``python -m autograder.notebook CHECK FOLDER``: one check with the grading seeds, for a hidden block."""
    project = _project_of(check_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        folder_path = Path(folder).resolve()
        course = load_course(_course_of(folder_path))
        report = grade(folder_path, course, seed_set="grading", projects=[project], checks=[check_id],
                       student=student_of(folder_path)).report
    result = report.projects[project].checks[0]
    _print_verdict(result, check_id, "grading seeds")
    if course.private_overlay is None:
        print("  (note: graded with the kit's placeholder grading seeds; the instructor's overlay was not found)")
    print(f"{_POINTS}{result.score!r}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
