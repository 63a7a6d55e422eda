"""The ``similarity`` command, and what ``grade-all --similarity`` runs after grading."""

from __future__ import annotations

from pathlib import Path

from autograder.similarity.index import COMMON_SHARE, FLAG


def _share(text: str) -> float:
    import argparse

    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share such as 0.3 or 30%, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share above 0 and at most 1 (or 100%), got {text!r}")
    return value


def add_command(commands, course_option) -> None:
    s = commands.add_parser("similarity", help="a TA's second look: code similarity over a whole class (staff only)")
    s.add_argument("root", help="nbgrader's course folder (with submitted/) or a folder of <student>/<project>/")
    s.add_argument("--out", required=True, help="where similarity.html, similarity.csv and the pair pages go")
    s.add_argument("--projects", help="comma-separated project ids, e.g. A,D (default: those found in the class)")
    s.add_argument("--against", nargs="+", action="extend", default=[], metavar="FOLDER",
                   help="outside code every student is compared with as well (public implementations, last year's "
                        "class folder); repeatable")
    s.add_argument("--flag", type=_share, default=FLAG, metavar="SHARE",
                   help=f"flag pairs whose similarity is at least this (default {FLAG:g})")
    s.add_argument("--common", type=_share, default=COMMON_SHARE, metavar="SHARE",
                   help=f"code found in more than this share of the class is common, not evidence "
                        f"(default {COMMON_SHARE:g})")
    course_option(s)
    s.set_defaults(run=cmd_similarity)


def run_similarity(root: Path, out: Path, course, course_root: Path, projects: list[str], against: list[str],
                   flag: float = FLAG, common: float = COMMON_SHARE) -> Path:
    """Write the report for ``projects`` of the class at ``root`` into ``out``; returns similarity.html."""
    from autograder.command_common import UsageError, err
    from autograder.progress import progress_bar
    from autograder.projects import PROJECTS
    from autograder.similarity import similarity_report

    folders = []
    for folder in against:
        if not Path(folder).is_dir():
            raise UsageError(f"--against {folder}: not a folder")
        folders.append(Path(folder))
    from autograder.class_folder import students_in
    from autograder.similarity.pages import PAGES

    if any(student == PAGES for student, _ in students_in(root)):
        raise UsageError(f"a student of {root} is named {PAGES!r}, the folder of the report's pair pages: write the "
                         f"report elsewhere (autograder similarity ROOT --out DIR)")
    wanted = {pid: PROJECTS[pid].folder for pid in projects}
    with progress_bar("similarity", total=len(wanted), console=err) as bar:
        page, table, comparisons = similarity_report(
            root, out, course_root, wanted, {pid: PROJECTS[pid].title for pid in wanted}, folders, common=common,
            flag=flag, progress=lambda pid: bar.advance(f"project {pid} compared"))
    for comparison in comparisons:
        flagged = sum(p.flagged for p in comparison.pairs)
        err.print(f"project {comparison.project}: {comparison.students} submissions, {len(comparison.pairs)} pairs "
                  f"sharing code beyond the stubs, {flagged} flagged", highlight=False)
    err.print(f"similarity report (staff only) in {page}, every pair in {table}", highlight=False)
    return page


def cmd_similarity(args) -> int:
    from autograder.class_folder import assigned_projects
    from autograder.command_common import UsageError, course_file_of, course_root_of, projects_option
    from autograder.loader import load_course

    root = Path(args.root)
    if not root.is_dir():
        raise UsageError(f"ROOT should be a class folder (submitted/<student>/<project>/ or <student>/<project>/); "
                         f"{root} is not a folder")
    course_file = course_file_of(args)
    course = load_course(course_file, private=False)  # no seeds are needed: nothing is graded
    course_root = course_root_of(args)
    projects = assigned_projects(root, course, projects_option(args.projects, course))
    run_similarity(root, Path(args.out), course, course_root, projects, args.against, args.flag, args.common)
    return 0
