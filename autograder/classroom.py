"""``autograder grade-all``: a whole class, resumable, one student's failure never stopping the rest.

Layouts: nbgrader's ``ROOT/submitted/{student}/{project}/`` or a plain ``ROOT/{student}/{project}/`` of downloads.
Each student's report is written atomically beside a fingerprint of their files and of the course; a rerun skips every
student whose fingerprint still matches, so an interrupted run resumes where it stopped and regrades nobody twice.
"""

from __future__ import annotations

import csv
import hashlib
import os
import stat
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.grading import Graded, Stopped, grade
from autograder.plan import real_folder
from autograder.projects import PROJECTS
from autograder.report import Report, score_text, write_html
from autograder.sandbox.runner import STOP

FINGERPRINT = ".fingerprint"


@dataclass
class Row:
    student: str
    status: str  # see ``what_happened``; "no submission (...)" and "error: ..." when there is no report
    report: Report | None


def students_in(root: Path) -> list[tuple[str, Path]]:
    """(student id, folder) for every student folder, sorted by id."""
    base = root / "submitted" if (root / "submitted").is_dir() else root
    return sorted((p.name, p) for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))


def assigned_projects(root: Path, course: Course, wanted: list[str] | None = None) -> list[str]:
    """The projects the class was given: ``wanted`` when named, else every course project some student's folder
    holds (all of the course's when no student holds any), in course.yml's order."""
    if wanted:
        return [pid for pid in course.projects if pid in wanted]
    folders = [folder for _, folder in students_in(root)]
    found = [pid for pid in course.projects if any(real_folder(f / PROJECTS[pid].folder) for f in folders)]
    return found or list(course.projects)


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


def fingerprint(folder: Path, course: Course, seed_set: str, projects: list[str]) -> str:
    """Changes whenever a file of the student's, the course, the seed set or the graded projects change."""
    digest = hashlib.sha256(course.model_dump_json().encode() + seed_set.encode() + ",".join(projects).encode())
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


REGRADE = {"timed-out": "timed out", "crashed": "crashed", "all": ""}  # --regrade: which kept gradings to redo


def forget(out: Path, which: str) -> list[str]:
    """Make the next run regrade the students of ``out`` whose kept grading matches ``which`` (``REGRADE``'s keys:
    those whose status says timed out, or crashed, or all): their fingerprint goes, their report stays until the
    regrade replaces it. Returns those students."""
    problem, forgotten = REGRADE[which], []
    for stamp in sorted(out.glob(f"*/{FINGERPRINT}")) if out.is_dir() else []:
        try:
            status = what_happened(Report.load(stamp.parent / "report.json"))
        except (OSError, ValueError, KeyError, TypeError):
            status = "unreadable"  # a report that cannot be read is graded again in any case
        if problem in status:
            stamp.unlink()
            forgotten.append(stamp.parent.name)
    return forgotten


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def before_grading(student: str, folder: Path, out: Path, course: Course, seed_set: str,
                   projects: list[str]) -> tuple[Row | None, str, str]:
    """What the submitting process decides before any grading: (the row when there is nothing to grade, the
    fingerprint, the status a graded student gets). A student unchanged since their report, or without any of the
    graded projects, has their row here."""
    target = out / student
    if folder.is_symlink():  # never followed: it may lead to a classmate's folder or one the student may not read
        return Row(student, "no submission (the student's folder is a link, which is never followed; expected a "
                   "folder)", None), "", ""
    stamp = fingerprint(folder, course, seed_set, projects)
    if (target / FINGERPRINT).exists() and (target / FINGERPRINT).read_text() == stamp:
        report = Report.load(target / "report.json")
        problems = what_happened(report)
        return Row(student, f"unchanged ({problems})" if problems else "unchanged", report), stamp, ""
    status = "regraded" if (target / "report.json").exists() else "graded"
    present = [pid for pid in projects if real_folder(folder / PROJECTS[pid].folder)]
    if not present:
        found = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
        expected = " or ".join(f"{PROJECTS[pid].folder}/" for pid in projects)
        return Row(student, f"no submission (expected {expected}; found {found})", None), stamp, status
    return None, stamp, status


def grade_one(student: str, folder: Path, course: Course, seed_set: str, projects: list[str]) -> Graded | Row:
    """One student's grading, where it runs (a thread of this process, or a cluster's worker): the report and its
    figures, or an ``error: ...`` row when the grader itself failed on them."""
    try:
        graded = grade(folder, course, seed_set=seed_set, projects=projects, jobs=1, student=student)
    except Stopped:
        raise
    except Exception as exc:  # noqa: BLE001 - one student's failure must not stop the class
        return Row(student, f"error: {type(exc).__name__}: {exc} ({traceback.extract_tb(exc.__traceback__)[-1].name})",
                   None)
    graded.report.submission = student
    return graded


def keep(student: str, out: Path, graded: Graded | Row, stamp: str, status: str) -> Row:
    """Write a graded student's report.json, report.html and fingerprint (in the submitting process); their row."""
    if isinstance(graded, Row):
        return graded
    target = out / student
    target.mkdir(parents=True, exist_ok=True)
    write_html(graded.report, graded.figures, target / "report.html",
               {pid: PROJECTS[pid].title for pid in graded.report.projects})
    _write_atomically(target / "report.json", graded.report.dumps())
    _write_atomically(target / FINGERPRINT, stamp)  # last: a report without it is regraded on resume
    return Row(student, what_happened(graded.report) or status, graded.report)


def grade_student(student: str, folder: Path, out: Path, course: Course, seed_set: str,
                  projects: list[str] | None = None) -> Row:
    projects = projects or list(course.projects)
    row, stamp, status = before_grading(student, folder, out, course, seed_set, projects)
    if row is not None:
        return row
    return keep(student, out, grade_one(student, folder, course, seed_set, projects), stamp, status)


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
