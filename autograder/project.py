"""What a project is to the rest of the kit: its folder in a submission, the student modules to load, its checks, its
plots and its specifics. Each project package makes one (``PROJECT = Project.of(...)``); the registry
(``autograder.projects``) finds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from autograder.checks import Check


@dataclass(frozen=True)
class Project:
    """One capstone: its folder in a submission, the student modules to load, its checks and its plots, and what the
    rest of the kit must know about it (the core names no project: release, nbgrader and the CLI ask these fields).

    ``made_by_students``: files the reference's own run leaves in its folder that each student makes from their own
    run (B's results.json): never released, never copied from the source into a student's folder.
    ``copies``: files of the folder that are copies of another project's (B's ``ppo.py`` is A's), kept equal on release.
    ``own_files``: files each student is handed personally (C's logs): nbgrader keeps the student's, never the source's.
    ``knows_student``: the checks judge with the student's id and the course secret (C's own logs); other projects'
    checks are never told either.
    ``commands``: ``module:function`` of the project's own CLI commands (C's ``c-logs``): ``function(subparsers,
    course_option, course_of)`` adds them, ``course_of(args)`` loading the course as every command does. Named, not
    imported, and handed the loader's work, so that neither the registry nor a project imports the course's loader,
    which imports the registry.
    ``needs_secret``: ``needs_secret(project_config)`` says, in a sentence, why a course configured so cannot grade
    the project without the course secret (C's per-student logs), or None when it can.
    ``students_kit``: the students' checker runs the project's public checks, as its package's ``student_kit`` module
    says (``SPECS``, ``KINDS``, ``FINAL_GRADING``); False leaves every check to final grading (and needs no module).
    """

    id: str
    title: str
    folder: str
    modules: tuple[str, ...]
    checks: dict[str, Check]
    plots: Callable[..., list] | None = None  # plots(details by check id, reference=None) -> [(caption, png)]
    made_by_students: tuple[str, ...] = ()
    copies: dict[str, str] = field(default_factory=dict)  # file in this folder -> "<folder>/<file>" it copies
    own_files: tuple[str, ...] = ()
    knows_student: bool = False
    commands: str | None = None
    needs_secret: Callable[..., str | None] | None = None
    students_kit: bool = True

    @classmethod
    def of(cls, id: str, title: str, folder: str, modules: tuple[str, ...], checks: list[type[Check]],
           plots=None, **specifics) -> Project:
        return cls(id, title, folder, modules, {c.id: c() for c in checks}, plots, **specifics)
