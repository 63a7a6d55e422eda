"""A class folder: its students, and the projects the class was given."""

from __future__ import annotations

from pathlib import Path

from autograder.config import Course
from autograder.plan import real_folder
from autograder.projects import PROJECTS


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
