"""The ``grade-all`` command: a class graded here (``--jobs``) or on a Dask cluster (``--scheduler``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rich.markup import escape

from autograder.classroom.cluster import SchedulerLost  # imports no Dask: that waits for --scheduler
from autograder.command_common import (UsageError, course_of, course_root_of, err, note_placeholder_seeds,
                                       projects_option)
from autograder.progress import progress_bar


def add_command(commands, course_option) -> None:
    """Register ``grade-all`` on the CLI's subparsers."""
    a = commands.add_parser("grade-all", help="grade a whole class into a folder of reports and grades.csv")
    a.add_argument("root", help="nbgrader's course folder (with submitted/) or a folder of <student>/<project>/")
    a.add_argument("--out", required=True, help="where grades.csv, summary.html and <student>/report.* go")
    a.add_argument("--seeds", choices=["public", "grading"], default="grading")
    a.add_argument("--projects", help="comma-separated project ids the class was given, e.g. D (default: those "
                                      "found in the students' folders)")
    course_option(a)
    a.add_argument("--private", help="private overlay with the grading seeds")
    a.add_argument("--jobs", type=int, help="students graded in parallel (default 1)")
    a.add_argument("--scheduler", metavar="ADDRESS", help="grade on the Dask cluster whose scheduler is at ADDRESS "
                   "(e.g. tcp://head:8786), a task per student; needs the dask extra")
    a.add_argument("--insecure", action="store_true", help="grade with the private overlay even where "
                   "student code cannot be isolated (no bubblewrap, not root)")
    a.add_argument("--similarity", action="store_true", help="also write the staff-only similarity report "
                   "(similarity.html, similarity.csv) into --out, as `autograder similarity` does")
    a.add_argument("--regrade", choices=["timed-out", "crashed", "all"], help="grade again the students whose kept "
                   "grading timed out (or crashed, or all of them), though their files have not changed")
    a.set_defaults(run=cmd_grade_all)


def _grade_all_on_cluster(args, root, out, course, advance, projects):
    from autograder.classroom.cluster import dask_distributed, grade_all_on

    dask_distributed()  # Dask installed, else a clear error before anything else is said
    err.print(f"grading on the Dask cluster at {args.scheduler}, a task per student", highlight=False)
    return grade_all_on(args.scheduler, root, out, course, seed_set=args.seeds, progress=advance, projects=projects)


def _check_arguments(args, root: Path) -> None:
    """UsageError for options that do not go together, or a ROOT that is not a folder."""
    if args.scheduler and args.jobs:
        raise UsageError("--jobs and --scheduler do not go together: on a cluster each worker grades as many "
                         "students at once as it has threads (dask worker --nthreads)")
    if args.scheduler and args.insecure:
        raise UsageError("--insecure does not reach a cluster's workers: start the workers with "
                         "AUTOGRADER_INSECURE=1 in their environment if you accept unisolated grading there")
    if not root.is_dir():
        raise UsageError(f"ROOT should be a class folder (submitted/<student>/<project>/ or <student>/<project>/); "
                         f"{root} is not a folder")


def _say_regrading(out: Path, which: str) -> None:
    """Forget the kept gradings ``--regrade`` names, and say whose."""
    from autograder.classroom.resume import forget

    again = forget(out, which)
    err.print(f"regrading {len(again)} student{'s' * (len(again) != 1)} ({which})"
              + (f": {', '.join(again[:10])}{' and more' if len(again) > 10 else ''}" if again else ""),
              highlight=False)


def cmd_grade_all(args) -> int:
    from autograder.class_folder import assigned_projects, students_in
    from autograder.classroom.local import Interrupted, grade_all
    from autograder.report.summary import write_summary

    root, out = Path(args.root), Path(args.out)
    _check_arguments(args, root)
    course = course_of(args)
    projects = assigned_projects(root, course, projects_option(args.projects, course))
    note_placeholder_seeds(course, args.seeds)
    if args.regrade:
        _say_regrading(out, args.regrade)
    err.print(f"grading project{'s' if len(projects) > 1 else ''} {', '.join(projects)}"
              f"{'' if args.projects else ' (those found in the class; --projects to choose)'}", highlight=False)
    with progress_bar("class", total=len(students_in(root)), console=err) as bar:
        def advance(student: str, done: int, total: int) -> None:
            bar.total(total)
            bar.advance(f"{student} done")

        try:
            if args.scheduler:
                rows = _grade_all_on_cluster(args, root, out, course, advance, projects)
            else:
                rows = grade_all(root, out, course, seed_set=args.seeds, jobs=args.jobs or 1, progress=advance,
                                 projects=projects)
        except Interrupted as stopped:
            bar.stop()
            err.print(str(stopped), highlight=False)
            return 130
        except SchedulerLost as lost:
            bar.stop()
            err.print(f"[red]error:[/] {escape(str(lost))}", highlight=False)
            return 3
    if args.similarity:  # before the summary, which links to it
        from autograder.similarity.command import run_similarity

        run_similarity(root, out, course, course_root_of(args), projects, [])
    summary = write_summary(rows, course, out / "summary.html", projects)
    counts = Counter(row.headline for row in rows)
    err.print(f"{len(rows)} students: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    err.print(f"grades in {out / 'grades.csv'}, reports in {out}/<student>/, class summary in {summary}")
    return 0
