"""Project C's own command, ``autograder c-logs``: write each student's three logs (or the bundled example set)."""

from __future__ import annotations

import functools
from pathlib import Path


def add_commands(commands, course_option, course_of) -> None:
    """Register ``c-logs`` on the CLI's subparsers (the CLI asks each project for its commands, handing it how every
    command loads its course: ``course_of(args)``)."""
    lg = commands.add_parser("c-logs", help="Project C: write each student's three logs (or the example set)")
    lg.add_argument("students", nargs="*", help="student ids (nbgrader's ids, or Gradescope emails)")
    lg.add_argument("--roster", help="a file with one student id per line")
    lg.add_argument("--example", action="store_true", help="write the bundled example set (no student) into --out")
    lg.add_argument("--out", required=True, help="where <student>/agent_*.npz (or, with --example, agent_*.npz) go")
    course_option(lg)
    lg.add_argument("--private", help="private overlay with the course secret")
    lg.add_argument("--jobs", type=int, help="sets written in parallel (default 1)")
    lg.set_defaults(run=functools.partial(write_logs, course_of=course_of))


def _roster(args) -> list[str]:
    students = list(args.students)
    if args.roster:
        students += [line.strip() for line in Path(args.roster).read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#")]
    return students


def write_logs(args, course_of) -> int:
    from concurrent.futures import ProcessPoolExecutor  # training is numpy in Python loops: processes, not threads

    from autograder import paths
    from autograder.console import UsageError, err
    from autograder.progress import progress_bar
    from autograder.projects.c_diagnosis import edges, run_plan

    course = course_of(args)
    if "C" not in course.projects or "C.own_labels" not in course.projects["C"].checks:
        raise UsageError("this course does not grade C.own_labels, whose bar says how the logs are made: "
                         f"add it to {paths.course_file(getattr(args, 'course', None))}")
    bar = course.projects["C"].checks["C.own_labels"].bar
    students = _roster(args)
    if not students and not args.example:
        raise UsageError("name the students (or --roster FILE), or pass --example for the bundled example set")
    if students and not course.secret:
        raise UsageError("no course secret: put `secret: <long random text>` in course.private.yml first (without it "
                         "anyone with the kit could work out which log holds which fault)")
    out = Path(args.out)
    jobs = [(out, run_plan.student_key(None, None, bar["example_seed"]))] if args.example else []
    jobs += [(out / student, run_plan.student_key(student, course.secret, 0)) for student in students]
    with progress_bar("training logs", total=len(jobs), console=err) as progress, \
            ProcessPoolExecutor(max_workers=args.jobs or 1) as pool:
        for (folder, _), paths in zip(jobs, pool.map(edges.write_student_set, *zip(*jobs)) if jobs else []):
            err.print(f"wrote {', '.join(str(p) for p in paths)}")
            progress.advance(f"{folder.name} done")
    return 0
