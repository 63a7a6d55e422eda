"""``autograder grade-all``: a whole class, resumable, one student's failure never stopping the rest.

Layouts: nbgrader's ``ROOT/submitted/{student}/{project}/`` or a plain ``ROOT/{student}/{project}/`` of downloads.
Each student's report is written atomically beside a fingerprint of their files and of the course; a rerun skips every
student whose fingerprint still matches, so an interrupted run resumes where it stopped and regrades nobody twice.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import stat
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.grading import Stopped, grade
from autograder.projects import PROJECTS
from autograder.report import write_html
from autograder.sandbox.runner import STOP

FINGERPRINT = ".fingerprint"


@dataclass
class Row:
    student: str
    status: str  # "graded", "regraded", "unchanged", "no submission", "error: ..."
    report: dict | None


def students_in(root: Path) -> list[tuple[str, Path]]:
    """(student id, folder) for every student folder, sorted by id."""
    base = root / "submitted" if (root / "submitted").is_dir() else root
    return sorted((p.name, p) for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def fingerprint(folder: Path, course: Course, seed_set: str) -> str:
    """Changes whenever a file of the student's, the course or the seed set changes."""
    digest = hashlib.sha256(course.model_dump_json().encode() + seed_set.encode())
    files = [Path(top, name) for top, _, names in os.walk(folder) for name in names]  # walk: links not followed
    for path in sorted(p for p in files if "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_symlink():  # its target, never what it points to: that may be anything, /dev/zero included
            digest.update(b"-> " + os.readlink(path).encode())
        else:
            _digest_file(digest, path)
    return digest.hexdigest()


def _digest_file(digest, path: Path) -> None:
    """A regular file's bytes into ``digest``; a fifo, device or unreadable file only by its name (never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        digest.update(f"unreadable: {exc.strerror}".encode())
        return
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return
        while chunk := handle.read(2**20):
            digest.update(chunk)


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def grade_student(student: str, folder: Path, out: Path, course: Course, seed_set: str) -> Row:
    target = out / student
    stamp = fingerprint(folder, course, seed_set)
    if (target / FINGERPRINT).exists() and (target / FINGERPRINT).read_text() == stamp:
        return Row(student, "unchanged", json.loads((target / "report.json").read_text()))
    status = "regraded" if (target / "report.json").exists() else "graded"
    present = [pid for pid, project in PROJECTS.items()
               if pid in course.projects and (folder / project.folder).is_dir()]
    if not present:
        found = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
        return Row(student, f"no submission (expected a project folder such as "
                            f"{PROJECTS[next(iter(course.projects))].folder}/; found {found})", None)
    try:
        graded = grade(folder, course, seed_set=seed_set, projects=list(course.projects), jobs=1, student=student)
    except Stopped:
        raise
    except Exception as exc:  # noqa: BLE001 - one student's failure must not stop the class
        return Row(student, f"error: {type(exc).__name__}: {exc} ({traceback.extract_tb(exc.__traceback__)[-1].name})",
                   None)
    graded.report["submission"] = student
    target.mkdir(parents=True, exist_ok=True)
    write_html(graded.report, graded.figures, target / "report.html",
               {pid: PROJECTS[pid].title for pid in graded.report["projects"]})
    _write_atomically(target / "report.json", json.dumps(graded.report, indent=2) + "\n")
    _write_atomically(target / FINGERPRINT, stamp)  # last: a report without it is regraded on resume
    return Row(student, status, graded.report)


def write_grades(rows: list[Row], course: Course, path: Path) -> None:
    projects = list(course.projects)
    with open(path.with_name(path.name + ".partial"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *projects, "total", "max", "status"])
        maximum = sum(c.points for p in projects for c in course.projects[p].checks.values())
        for row in sorted(rows, key=lambda r: r.student):
            scores = [row.report["projects"].get(p, {}).get("score", 0.0) if row.report else 0.0 for p in projects]
            writer.writerow([row.student, *(f"{s:g}" for s in scores), f"{sum(scores):g}", f"{maximum:g}", row.status])
    os.replace(path.with_name(path.name + ".partial"), path)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a class run: ``graded`` students have their rows, ``left`` are to be graded by a rerun."""

    def __init__(self, graded: int, left: int):
        super().__init__(f"stopped: {graded} graded, {left} left; rerun to resume")
        self.graded, self.left = graded, left


def grade_all(root: Path, out: Path, course: Course, seed_set: str = "grading", jobs: int = 1,
              progress=None) -> list[Row]:
    """Grade every student under ``root`` into ``out``; ``progress(student, done, total)`` hears each one finish.

    On Ctrl-C the running checks are killed, students not yet started stay ungraded, every finished row is kept,
    and Interrupted says how many are left."""
    out.mkdir(parents=True, exist_ok=True)
    students = students_in(root)
    rows: list[Row] = []
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(grade_student, sid, folder, out, course, seed_set): sid for sid, folder in students}
        for future in as_completed(futures):
            rows.append(future.result())
            write_grades(rows, course, out / "grades.csv")  # after every student: a kill loses no finished row
            if progress:
                progress(futures[future], len(rows), len(students))
    except KeyboardInterrupt:
        STOP.set()  # the running students' children are killed within a fraction of a second
        raise Interrupted(len(rows), len(students) - len(rows)) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        STOP.clear()
    return sorted(rows, key=lambda r: r.student)
