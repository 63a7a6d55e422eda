"""The ``autograder`` command: a thin layer over config, grading, report and release."""

from __future__ import annotations

import argparse
import os
import warnings
from importlib import import_module
from pathlib import Path

from rich.markup import escape

from autograder import paths
from autograder.classroom.cluster import ClusterError  # imports no Dask: that waits for --scheduler
from autograder.command_common import (UsageError, course_file_of, course_of, course_root_of, err,
                                       note_placeholder_seeds, projects_option)
from autograder.config import CourseError
from autograder.grading import figures_of, grade
from autograder.kit import KitError
from autograder.progress import progress_bar
from autograder.projects import PROJECTS
from autograder.report import print_table, write_html, write_json
from autograder.sandbox import user
from autograder.student_kit.command import add_student_kit


def project_folders() -> str:
    """Every project's folder, as the help of a path argument lists them (discovering the projects)."""
    return ", ".join(f"{p.folder}/" for p in PROJECTS.values())


def _advance_per_check(bar):
    """The ``progress`` callback of ``grade``: how many checks are done, of how many, and which ended last."""
    def advance(what: str, done: int, total: int) -> None:
        bar.total(total)
        bar.at(done, what)
    return advance


def _grade_and_report(path: Path, course, args, seed_set: str, public_only: bool) -> int:
    projects = projects_option(args.projects, course)
    note_placeholder_seeds(course, seed_set)
    with progress_bar("grading", console=err) as bar:
        graded = grade(path, course, seed_set=seed_set, projects=projects, public_only=public_only,
                       jobs=args.jobs, progress=_advance_per_check(bar), student=getattr(args, "student", None))
    print_table(graded.report, as_root=user.children_kept_root())
    if args.json:
        write_json(graded.report, args.json)
    if args.report:
        out = Path(args.report)
        write_json(graded.report, out / "report.json")
        page = write_html(graded.report, graded.figures, out / "report.html",
                          {pid: PROJECTS[pid].title for pid in graded.report.projects})
        err.print(f"report written to {page}")
    return 0


def cmd_grade(args) -> int:
    path = Path(args.path)
    if not path.is_dir():
        raise UsageError(f"PATH should be a folder of project folders or one project folder; {path} is not a folder")
    return _grade_and_report(path, course_of(args), args, args.seeds, public_only=False)


def cmd_check(args) -> int:
    course_file = course_file_of(args, fallback=True)  # a student's folder needs no course: the public checks suffice
    if args.course is None and paths.find_course(Path.cwd()) is None:
        err.print("[yellow]note:[/] no course folder here: checking with the kit's own course.yml")
    course = course_of(args, course_file)
    project = PROJECTS.get(args.project)
    if project is None or args.project not in course.projects:
        raise UsageError(f"unknown project {args.project!r} (this course has {', '.join(course.projects)})")
    here = Path(args.path).resolve()
    candidates = [here / project.folder, here, here / "assignments" / project.folder]
    folder = next((c for c in candidates if c.name == project.folder and c.is_dir()), None)
    if folder is None:
        raise UsageError(f"no {project.folder} folder here: looked for {', '.join(str(c) for c in candidates)}")
    err.print(f"checking {folder} with the public checks and seeds")
    args.projects = args.project
    return _grade_and_report(folder, course, args, "public", public_only=True)


def _judged_details(report, pid: str) -> dict[str, dict]:
    """Project ``pid``'s checks' details, those that failed to run as empty: what its figures overlay."""
    return report.projects[pid].figures_data()


def cmd_compare(args) -> int:
    from autograder.report.compare import write_compare

    path = Path(args.path)
    if not path.is_dir():
        raise UsageError(f"PATH should be a submission folder; {path} is not a folder")
    course = course_of(args)
    solutions = course_root_of(args) / "solutions"
    if not solutions.is_dir():
        raise UsageError(f"compare grades the course's reference beside the submission: expected {solutions}, "
                         "found no such folder")
    projects = projects_option(args.projects, course)
    with progress_bar("grading the submission", console=err) as bar:
        advance = _advance_per_check(bar)
        student = grade(path, course, seed_set=args.seeds, projects=projects, jobs=args.jobs, progress=advance,
                        for_student=False)  # the TA's page: what the student's code did, in full
        wanted = list(student.report.projects)
        bar.restart("grading the reference")
        reference = grade(solutions, course, seed_set=args.seeds, projects=wanted, jobs=args.jobs,
                          progress=advance, for_student=False)
    figures = {}
    for pid in wanted:
        figures[pid] = figures_of(pid, _judged_details(student.report, pid),
                                  reference=_judged_details(reference.report, pid))
    page = write_compare(student.report, reference.report, figures, course, Path(args.out))
    print_table(student.report, as_root=user.children_kept_root())
    err.print(f"side-by-side page written to {page}")
    return 0


DESCRIPTION = ("Grade the capstone projects of D2L §15.7. Students: `autograder check D` runs the public checks on "
               "your D_grpo folder. Instructors: `autograder init DIR` makes a course folder; `grade`, `grade-all`, "
               "`compare`, `release`, `c-logs` and `gradescope` work on the course folder you are in (or --course "
               "DIR). Each command's --help says more.")

COURSE_HELP = ("the course folder (holding course.yml), or a course file to use instead of its course.yml "
               "(default: the working directory or the nearest folder above it that holds course.yml)")


def parser() -> argparse.ArgumentParser:
    from autograder.classroom.command import add_command as add_grade_all
    from autograder.similarity.command import add_command as add_similarity
    from autograder.course_commands import cmd_gradescope, cmd_init, cmd_release

    folders = project_folders()
    top = argparse.ArgumentParser(prog="autograder", description=DESCRIPTION)
    top.add_argument("--course", metavar="DIR", help=COURSE_HELP)
    commands = top.add_subparsers(dest="command", required=True)

    def course_option(p):  # also after the command; SUPPRESS keeps a --course given before it
        p.add_argument("--course", metavar="DIR", default=argparse.SUPPRESS, help=COURSE_HELP)

    def common(p):
        course_option(p)
        p.add_argument("--private", help="private overlay with the grading seeds (default: course.private.yml "
                                         "beside course.yml, or $AUTOGRADER_PRIVATE)")
        p.add_argument("--jobs", type=int, help="checks run in parallel (default: course.yml's jobs)")
        p.add_argument("--json", help="also write the report JSON to this file")
        p.add_argument("--report", help="write report.json and report.html into this folder")

    g = commands.add_parser("grade", help="grade one submission and print the score table")
    g.add_argument("path", help=f"a folder of project folders ({folders}) or one project folder")
    g.add_argument("--projects", help="comma-separated project ids, e.g. A,D (default: those present)")
    g.add_argument("--seeds", choices=["public", "grading"], default="grading")
    g.add_argument("--student", help="the student's id, for checks that depend on it (C's own logs)")
    common(g)
    g.add_argument("--insecure", action="store_true", help="grade with the private overlay even where "
                   "student code cannot be isolated (no bubblewrap, not root)")
    g.set_defaults(run=cmd_grade)

    c = commands.add_parser("check", help="a student's local run: public checks, public seeds")
    c.add_argument("project", help="project id, e.g. D")
    c.add_argument("--path", default=".", help="where to look for the project folder (default: here)")
    common(c)
    c.set_defaults(run=cmd_check)

    k = commands.add_parser("compare", help="a TA's view: a submission and the reference on the same seeds")
    k.add_argument("path", help="a folder of project folders or one project folder")
    k.add_argument("--projects", help="comma-separated project ids (default: those present)")
    k.add_argument("--seeds", choices=["public", "grading"], default="public")
    k.add_argument("--out", default="compare.html", help="the page to write (default: compare.html)")
    course_option(k)
    k.add_argument("--private", help="private overlay with the grading seeds")
    k.add_argument("--jobs", type=int, help="checks run in parallel")
    k.add_argument("--insecure", action="store_true", help="grade with the private overlay even where "
                   "student code cannot be isolated (no bubblewrap, not root)")
    k.set_defaults(run=cmd_compare)

    add_grade_all(commands, course_option)  # `autograder grade-all`, in autograder.classroom.command
    add_similarity(commands, course_option)  # `autograder similarity`, in autograder.similarity.command

    z = commands.add_parser("gradescope", help="build the Gradescope autograder zip")
    z.add_argument("--out", default="autograder.zip", help="the zip to write (default: autograder.zip)")
    z.add_argument("--projects", help="the projects this Gradescope assignment grades, e.g. D (default: whichever "
                                      "an upload holds); one assignment per project is the usual way")
    course_option(z)
    z.add_argument("--private", help="private overlay with the grading seeds to build in (default: "
                                     "$AUTOGRADER_PRIVATE, then course.private.yml)")
    z.set_defaults(run=cmd_gradescope)

    r = commands.add_parser("release", help="regenerate assignments/ from solutions/")
    r.add_argument("projects", nargs="*", help=f"project folders, of {folders} (default: all)")
    course_option(r)
    r.set_defaults(run=cmd_release)

    add_student_kit(commands, course_option, course_root_of)

    i = commands.add_parser("init", help="make a new course folder from the kit's own course")
    i.add_argument("folder", help="the folder to make (it may exist, if empty)")
    i.set_defaults(run=cmd_init)
    for project in PROJECTS.values():  # a project's own commands (C: c-logs)
        if project.commands:
            module, function = project.commands.split(":")
            getattr(import_module(module), function)(commands, course_option, course_of)
    return top


def say_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line for the person at the terminal: what it says, without Python's file, line and source
    (the kit's warnings, such as the sandbox's "student code will run as root", are meant for the instructor)."""
    err.print(f"[yellow]warning:[/] {escape(str(message))}", highlight=False)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "insecure", False):
        os.environ["AUTOGRADER_INSECURE"] = "1"
    with warnings.catch_warnings():
        warnings.showwarning = say_warning
        warnings.filterwarnings("once", category=RuntimeWarning, module=r"autograder\.")  # once a run, not per check
        return _run(args)


def _run(args) -> int:
    try:
        return args.run(args)
    except (UsageError, CourseError, KitError, paths.CourseNotFound, ClusterError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside a class run: a line, not a traceback
        err.print("stopped", highlight=False)
        return 130
