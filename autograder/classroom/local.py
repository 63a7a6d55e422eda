"""The class graded here: ``--jobs`` students at once, each in a thread of this process, rows written as they finish."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from autograder.class_folder import assigned_projects, students_in
from autograder.classroom.one_student import grade_student
from autograder.classroom.rows import Row, write_grades
from autograder.config import Course
from autograder.sandbox.runner import STOP


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a class run: ``graded`` students have their rows, ``left`` are to be graded by a rerun."""

    def __init__(self, graded: int, left: int):
        super().__init__(f"stopped: {graded} graded, {left} left; rerun to resume")
        self.graded, self.left = graded, left


def grade_all(root: Path, out: Path, course: Course, seed_set: str = "grading", jobs: int = 1,
              progress=None, projects: list[str] | None = None) -> list[Row]:
    """Grade every student under ``root`` into ``out``; ``progress(student, done, total)`` hears each one finish.
    ``projects`` are the projects graded (default: ``assigned_projects``, those the class holds).

    On Ctrl-C the running checks are killed, students not yet started stay ungraded, every finished row is kept,
    and Interrupted says how many are left."""
    out.mkdir(parents=True, exist_ok=True)
    students = students_in(root)
    projects = projects or assigned_projects(root, course)
    rows: list[Row] = []
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(grade_student, sid, folder, out, course, seed_set, projects): sid
                   for sid, folder in students}
        for future in as_completed(futures):
            rows.append(future.result())
            # after every student: a kill loses no finished row
            write_grades(rows, course, out / "grades.csv", projects)
            if progress:
                progress(futures[future], len(rows), len(students))
    except KeyboardInterrupt:
        STOP.set()  # the running students' children are killed within a fraction of a second
        raise Interrupted(len(rows), len(students) - len(rows)) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        STOP.clear()
    return sorted(rows, key=lambda r: r.student)
