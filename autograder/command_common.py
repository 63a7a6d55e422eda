"""What every command shares: the console it speaks on, the error that means bad arguments, the course folder that
``--course`` names, ``--projects`` read as project ids, and the note about placeholder grading seeds.

It imports no command, so the CLI and every command below it (grade-all, similarity, a project's own) build on it
without importing the CLI.
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from autograder import paths
from autograder.console import UsageError, err  # noqa: F401 - every command takes them from here or from console


def course_file_of(args, fallback: bool = False) -> Path:
    """The course file of ``--course`` (a course folder, or a course file), else of the course folder at or above the
    working directory; with ``fallback``, the kit's bundled course where there is none."""
    return paths.course_file(getattr(args, "course", None), fallback=fallback)


def course_root_of(args) -> Path:
    """The course folder of ``--course``, else the one at or above the working directory."""
    return paths.course_root(getattr(args, "course", None))


def projects_option(value: str | None, course) -> list[str] | None:
    """``--projects A,D`` as a list of the course's project ids (None when not given); UsageError names any id the
    course does not have."""
    projects = [p.strip() for p in value.split(",") if p.strip()] if value else None
    unknown = [p for p in projects or [] if p not in course.projects]
    if unknown:
        raise UsageError(f"--projects: unknown project {', '.join(unknown)} "
                         f"(this course has {', '.join(course.projects)})")
    return projects


def course_of(args, course_file: Path | None = None):
    """The course of ``--course`` (or ``course_file``) with the private overlay of ``--private`` or the one found,
    after saying which overlay that is (``say_overlay``)."""
    from autograder.loader import load_course

    course = load_course(course_file or course_file_of(args), getattr(args, "private", None))
    say_overlay(course)
    return course


def say_overlay(course) -> None:
    """Which private overlay a command reads, and whether it holds grading seeds and the course secret (never their
    values): an instructor with two overlays on one machine must see which one counted."""
    if course.private_overlay is None:
        return
    secret = "and the course secret" if course.secret else "no course secret"
    err.print(f"[dim]private overlay:[/] {escape(course.private_overlay)} (grading seeds, {secret})", highlight=False)


def note_placeholder_seeds(course, seed_set: str) -> None:
    """Say so when grading seeds are the bundled placeholders, or sit in an overlay other users can read."""
    if seed_set == "grading" and course.private_overlay is None:
        err.print("[yellow]note:[/] grading with the bundled placeholder grading seeds; "
                  "an instructor puts the real ones in course.private.yml")
    elif seed_set == "grading" and Path(course.private_overlay).stat().st_mode & 0o004:
        err.print(f"[yellow]note:[/] {course.private_overlay} can be read by other users, student code included; "
                  "make it yours alone (chmod 600)")
