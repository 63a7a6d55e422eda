"""The commands that set a course up and hand it out: ``init``, ``release`` and ``gradescope``; and what each says
when the course lacks the secret one of its projects needs."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from autograder import paths
from autograder.command_common import (UsageError, course_file_of, course_of, course_root_of, err, projects_option,
                                       say_overlay)
from autograder.config import CourseError
from autograder.loader import load_course
from autograder.progress import progress_bar
from autograder.projects import PROJECTS


def cmd_gradescope(args) -> int:
    from autograder.gradescope import build_zip, missing_secret

    course_file = course_file_of(args)
    course = course_of(args, course_file)  # the same overlay as every other command; a bad one fails here
    projects = projects_option(args.projects, course)
    missing = missing_secret(course, projects or list(course.projects))
    if missing:
        others = ",".join(pid for pid in course.projects if not missing_secret(course, [pid]))
        without = f", build for the other projects (--projects {others})" if others else ""
        raise UsageError(f"not building the zip: {missing}. Put that secret (the one `autograder c-logs` wrote the "
                         f"logs with) in the overlay{without}, or set per_student: false in course.yml if everyone "
                         "has the example logs")
    if course.private_overlay is None:
        err.print("[yellow]note:[/] no private overlay: Gradescope will grade with the placeholder grading seeds")
    if projects is None and len(course.projects) > 1:
        err.print(f"[yellow]note:[/] this zip grades whichever of {', '.join(course.projects)} an upload holds; "
                  "make one Gradescope assignment per project, each with its own zip (--projects D)")
    private = Path(course.private_overlay) if course.private_overlay else None
    out = build_zip(Path(args.out), private, course_file, projects)
    graded = f" for project{'s' * (len(projects) > 1)} {', '.join(projects)}" if projects else ""
    err.print(f"wrote {out}{graded}: upload it as the assignment's autograder (Gradescope: Configure Autograder, "
              "zip file)")
    return 0


def cmd_release(args) -> int:
    root = course_root_of(args)
    from autograder.release import ReleaseError, release_project  # needs nbgrader (the `nbgrader` extra)

    solutions = root / "solutions"
    if not solutions.is_dir():
        raise ReleaseError(f"expected the reference solutions in {solutions}, found no such folder")
    folders = args.projects or sorted(p.name for p in solutions.iterdir() if p.is_dir() and not p.name.startswith("."))
    released = []
    with progress_bar("releasing", total=len(folders), console=err) as bar:
        for folder in folders:
            bar.advance(f"{folder} (nbgrader generate_assignment)", steps=0)
            released.append(release_project(folder, solutions, root / "assignments"))
            bar.advance(f"{folder} done")
    for folder in released:
        err.print(f"released {folder.relative_to(root) if folder.is_relative_to(root) else folder}")
    released_ids = [pid for pid, p in PROJECTS.items() if p.folder in folders]
    try:
        course = load_course(root / paths.COURSE_NAME)
        say_overlay(course)
        note_secret(course, released_ids)
    except CourseError:  # the release is done; a bad course file is said by the next command that grades
        pass
    if not args.projects:  # every project released: the students' bundle of them too
        from autograder.student_kit.command import student_kit

        return student_kit(root, None, wheel=False)
    return 0


def note_secret(course, projects: list[str]) -> None:
    """Say, where a project needs the course secret, that it does and where it goes (with a fresh one to paste):
    without it, its personal files cannot be written or graded."""
    import secrets

    from autograder.plan import secret_wanted

    for why in secret_wanted(course, projects):
        err.print(f"[yellow]note:[/] {escape(why)}: put the course secret in course.private.yml beside the grading "
                  f"seeds, for example `secret: {secrets.token_urlsafe(24)}` (private, and unchanged all term), "
                  "before making each student's own (see docs/instructor-guide.md, \"Project C's logs are personal\")",
                  highlight=False)


def cmd_init(args) -> int:
    from autograder.kit import init_course

    folder = init_course(Path(args.folder))
    err.print(f"made the course folder {folder}: `cd {args.folder}` and `autograder grade solutions` grades the "
              "reference; put your grading seeds in course.private.yml (see the README)")
    course = load_course(folder / paths.COURSE_NAME, private=False)
    note_secret(course, list(course.projects))
    return 0
