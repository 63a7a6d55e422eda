"""The course as the kit loads it: course.yml read against its schema (``config``), then checked against the projects
the registry finds: every project and check id exists, every bar fits its check's ``Bar``, and every check a project
has is listed or skipped by name.

It stands above ``projects/`` so that the schema knows no project: the checks import the schema's errors, and the
registry imports the checks.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from autograder.checks import BarError, validated_bar
from autograder.config import Course, CourseError, course_path, read_course
from autograder.projects import PROJECTS


def load_course(path: str | Path | None = None, private: str | Path | None | bool = None) -> Course:
    """Read course.yml (by default the course folder's at or above the working directory), apply the private overlay,
    validate everything, the projects' checks and bars included.

    ``private`` names the overlay; None looks for it ($AUTOGRADER_PRIVATE, then course.private.yml beside the course
    file); False skips it.
    """
    path = course_path(path)
    course = read_course(path, private)
    _check_against_registry(course, path)
    _check_nothing_left_out(course, path)
    return course


def _check_against_registry(course: Course, path: Path) -> None:
    """Every project and check id must exist, and every bar must fit its check's Bar model."""
    problems = []
    for pid, pcfg in course.projects.items():
        if pid not in PROJECTS:
            problems.append(f"projects.{pid}: unknown project (known: {', '.join(PROJECTS)})")
            continue
        known = PROJECTS[pid].checks
        for cid, ccfg in pcfg.checks.items():
            if cid not in known:
                problems.append(f"projects.{pid}.checks.{cid}: unknown check (known: {', '.join(known)})")
                continue
            try:
                ccfg.typed_bar(partial(validated_bar, known[cid], where=f"projects.{pid}.checks.{cid}"))
            except BarError as exc:
                problems += exc.problems
    if problems:
        raise CourseError(f"{path} is not valid:\n" + "\n".join(f"  {p}" for p in problems))


def _check_nothing_left_out(course: Course, path: Path) -> None:
    """The other way round: each project's every check is listed, or left out by name under ``skip``. A check the
    course forgot would otherwise never run, and nothing would say so."""
    problems = []
    for pid, pcfg in course.projects.items():
        if pid not in PROJECTS:
            continue  # already reported
        known = PROJECTS[pid].checks
        unknown = [cid for cid in pcfg.skip if cid not in known]
        both = [cid for cid in pcfg.skip if cid in pcfg.checks]
        missing = [cid for cid in known if cid not in pcfg.checks and cid not in pcfg.skip]
        if unknown:
            problems.append(f"projects.{pid}.skip: unknown check {', '.join(unknown)} (known: {', '.join(known)})")
        if both:
            problems.append(f"projects.{pid}.skip: {', '.join(both)} is also listed under checks; keep one")
        if missing:
            problems.append(f"projects.{pid}.checks: {', '.join(missing)} missing; give each its points and bar, or "
                            f"name it under projects.{pid}.skip to leave it out of this course")
    if problems:
        raise CourseError(f"{path} is not valid:\n" + "\n".join(f"  {p}" for p in problems))
