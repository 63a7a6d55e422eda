"""Where things live: the kit's own code and course, and the course folder a command works on.

A *course folder* is a folder holding ``course.yml``, with ``solutions/`` and ``assignments/`` beside it and, for the
instructor, ``course.private.yml``. Commands find theirs the way nbgrader finds its config: ``--course DIR``, else
the working directory or the nearest folder above it that holds ``course.yml``. The kit never falls back to its own
course for a command that writes or grades with private material, so an installed kit never grades or releases the
wrong tree, and nothing is ever written into the install location.

The kit's *bundled* course (``BUNDLED``) is what ``autograder init`` copies: in a built package it is package data
(``autograder/bundled/``), in a source checkout (or Gradescope's unpacked zip) it is the folder holding the code.
"""

from __future__ import annotations

from pathlib import Path

COURSE_NAME = "course.yml"
PRIVATE_NAME = "course.private.yml"

PACKAGE = Path(__file__).resolve().parent
KIT_ROOT = PACKAGE.parent  # the checkout (or site-packages, for an installed kit)
BUNDLED = PACKAGE / "bundled" if (PACKAGE / "bundled" / COURSE_NAME).is_file() else KIT_ROOT

# The bundled course's files: the reference the kit's own tests grade, and what `autograder init` copies.
COURSE_FILE = BUNDLED / COURSE_NAME
PRIVATE_FILE = BUNDLED / PRIVATE_NAME
SOLUTIONS = BUNDLED / "solutions"
ASSIGNMENTS = BUNDLED / "assignments"


class CourseNotFound(Exception):
    """No course folder where one was looked for; the message says where and what to do."""


def find_course(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds course.yml, or None."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / COURSE_NAME).is_file():
            return folder
    return None


def course_root(given: str | Path | None = None, start: str | Path | None = None, fallback: bool = False) -> Path:
    """The course folder: ``given`` (a folder holding course.yml), else the nearest one at or above ``start`` (the
    working directory by default), else, with ``fallback``, the kit's bundled course. A course *file* given in place
    of a folder replaces the folder's course.yml; the folder is then found as usual, else it is the file's own."""
    if given is not None:
        given = Path(given)
        if given.is_file():
            return find_course(Path(start) if start is not None else Path.cwd()) or given.resolve().parent
        if (given / COURSE_NAME).is_file():
            return given.resolve()
        raise CourseNotFound(f"--course {given}: expected a course folder holding {COURSE_NAME} (or a course file), "
                             f"found {'a folder without one' if given.is_dir() else 'nothing there'}; "
                             f"`autograder init {given}` makes one")
    start = Path(start) if start is not None else Path.cwd()
    found = find_course(start)
    if found is not None:
        return found
    if fallback and (BUNDLED / COURSE_NAME).is_file():
        return BUNDLED
    raise CourseNotFound(f"no {COURSE_NAME} in {start.resolve()} or any folder above it: run the command inside a "
                         f"course folder, pass --course DIR, or make a course folder with `autograder init DIR`")


def course_file(given: str | Path | None = None, start: str | Path | None = None, fallback: bool = False) -> Path:
    """The course file: ``given`` itself when it is a file, else course.yml of the course folder ``course_root``
    finds."""
    if given is not None and Path(given).is_file():
        return Path(given)
    return course_root(given, start, fallback) / COURSE_NAME
