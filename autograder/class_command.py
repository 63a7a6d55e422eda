"""The ``grade-all`` command: a class graded here (``--jobs``) or on a Dask cluster (``--scheduler``)."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from autograder.cli import UsageError, note_placeholder_seeds, projects_option, course_file_of, err
from autograder.cluster import SchedulerLost  # imports no Dask: that waits for --scheduler
from autograder.config import load_course
from autograder.progress import progress_bar


def _grade_all_on_cluster(args, root, out, course, advance, projects):
    from autograder.cluster import dask_distributed, grade_all_on

    dask_distributed()  # Dask installed, else a clear error before anything else is said
    err.print(f"grading on the Dask cluster at {args.scheduler}, a task per student", highlight=False)
    return grade_all_on(args.scheduler, root, out, course, seed_set=args.seeds, progress=advance, projects=projects)


def cmd_grade_all(args) -> int:
    from autograder.classroom import Interrupted, assigned_projects, forget, grade_all, students_in
    from autograder.report.summary import write_summary

    root, out = Path(args.root), Path(args.out)
    if args.scheduler and args.jobs:
        raise UsageError("--jobs and --scheduler do not go together: on a cluster each worker grades as many "
                         "students at once as it has threads (dask worker --nthreads)")
    if args.scheduler and args.insecure:
        raise UsageError("--insecure does not reach a cluster's workers: start the workers with "
                         "AUTOGRADER_INSECURE=1 in their environment if you accept unisolated grading there")
    if not root.is_dir():
        raise UsageError(f"ROOT should be a class folder (submitted/<student>/<project>/ or <student>/<project>/); "
                         f"{root} is not a folder")
    course = load_course(course_file_of(args), args.private)
    projects = assigned_projects(root, course, projects_option(args.projects, course))
    note_placeholder_seeds(course, args.seeds)
    if args.regrade:
        again = forget(out, args.regrade)
        err.print(f"regrading {len(again)} student{'s' * (len(again) != 1)} ({args.regrade})"
                  + (f": {', '.join(again[:10])}{' and more' if len(again) > 10 else ''}" if again else ""),
                  highlight=False)
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
        from autograder import paths
        from autograder.similarity.command import run_similarity

        run_similarity(root, out, course, paths.course_root(getattr(args, "course", None)), projects, [])
    summary = write_summary(rows, course, out / "summary.html", projects)
    counts = {}
    for row in rows:
        key = row.status.split(":")[0].split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
    err.print(f"{len(rows)} students: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    err.print(f"grades in {out / 'grades.csv'}, reports in {out}/<student>/, class summary in {summary}")
    return 0
