"""One student of a class graded, in the three steps both ways of grading a class take: what the submitting process
decides before grading (``before_grading``), the grading itself wherever it runs (``grade_one``), and the report kept
by the submitting process (``keep``)."""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from autograder.classroom.resume import FINGERPRINT, fingerprint
from autograder.classroom.rows import Row, State, graded_row
from autograder.config import Course
from autograder.grading import Graded, Stopped, grade
from autograder.plan import real_folder
from autograder.projects import PROJECTS
from autograder.report import Report, write_html


def before_grading(student: str, folder: Path, out: Path, course: Course, seed_set: str,
                   projects: list[str]) -> tuple[Row | None, str, State | None]:
    """What the submitting process decides before any grading: (the row when there is nothing to grade, the
    fingerprint, the state a graded student gets: graded or regraded). A student unchanged since their report, or
    without any of the graded projects, has their row here."""
    target = out / student
    if folder.is_symlink():  # never followed: it may lead to a classmate's folder or one the student may not read
        return Row(student, "no submission", reason="the student's folder is a link, which is never followed; "
                   "expected a folder"), "", None
    stamp = fingerprint(folder, course, seed_set, projects)
    if (target / FINGERPRINT).exists() and (target / FINGERPRINT).read_text() == stamp:
        return graded_row(student, "unchanged", Report.load(target / "report.json")), stamp, None
    state = "regraded" if (target / "report.json").exists() else "graded"
    present = [pid for pid in projects if real_folder(folder / PROJECTS[pid].folder)]
    if not present:
        found = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
        expected = " or ".join(f"{PROJECTS[pid].folder}/" for pid in projects)
        return Row(student, "no submission", reason=f"expected {expected}; found {found}"), stamp, state
    return None, stamp, state


def grade_one(student: str, folder: Path, course: Course, seed_set: str, projects: list[str]) -> Graded | Row:
    """One student's grading, where it runs (a thread of this process, or a cluster's worker): the report and its
    figures, or an ``error`` row when the grader itself failed on them."""
    try:
        graded = grade(folder, course, seed_set=seed_set, projects=projects, jobs=1, student=student)
    except Stopped:
        raise
    except Exception as exc:  # noqa: BLE001 - one student's failure must not stop the class
        where = traceback.extract_tb(exc.__traceback__)[-1].name
        return Row(student, "error", reason=f"{type(exc).__name__}: {exc} ({where})")
    graded.report.submission = student
    return graded


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def keep(student: str, out: Path, graded: Graded | Row, stamp: str, state: State) -> Row:
    """Write a graded student's report.json, report.html and fingerprint (in the submitting process); their row."""
    if isinstance(graded, Row):
        return graded
    target = out / student
    target.mkdir(parents=True, exist_ok=True)
    write_html(graded.report, graded.figures, target / "report.html",
               {pid: PROJECTS[pid].title for pid in graded.report.projects})
    _write_atomically(target / "report.json", graded.report.dumps())
    _write_atomically(target / FINGERPRINT, stamp)  # last: a report without it is regraded on resume
    return graded_row(student, state, graded.report)


def grade_student(student: str, folder: Path, out: Path, course: Course, seed_set: str,
                  projects: list[str] | None = None) -> Row:
    """The three steps in a row, in this process: one student's row, their report written when they were graded."""
    projects = projects or list(course.projects)
    row, stamp, state = before_grading(student, folder, out, course, seed_set, projects)
    if row is not None:
        return row
    return keep(student, out, grade_one(student, folder, course, seed_set, projects), stamp, state)
