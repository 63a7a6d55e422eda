"""``capstone-check``: the students' command. ``capstone-check <project>`` runs the project's public checks on its
folder (found from the working directory); ``capstone-check start <project>`` copies the project's files to work in."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from capstone_check import prediction
from capstone_check.runner import CheckerError, expected, projects, run_project, say_limits_once

PROJECT_FILES = Path(__file__).parent / "projects"


def find_folder(folder_name: str, start: Path) -> Path | None:
    """The project folder: the working directory itself, a folder of that name inside it, or one above it."""
    for place in [start, *start.parents]:
        if place.name == folder_name:
            return place
        if (place / folder_name).is_dir():
            return place / folder_name
    return None


def score(value: float) -> str:
    return f"{value:g}"


def check(project: str, folder: Path | None, checks: list[str] | None = None, write=print) -> float:
    """Run one project's checks, printing each row once it and the rows it builds on have finished (those left to
    final grading last); then the total here and the total final grading is predicted to give. Returns the points
    earned here."""
    data = expected(project)
    where = folder or find_folder(data["folder"], Path.cwd())
    if where is None or not Path(where).is_dir():
        raise CheckerError(f"no {data['folder']} folder here or above {Path.cwd()}; run `capstone-check start "
                           f"{project}` to make one, or pass --folder")
    where = Path(where).resolve()  # each check's child works in a folder of its own, where a relative path is lost
    write(f"Project {project} ({data['title']}): public checks on {where}, seeds {data['seeds']}")
    say_limits_once(data.get("memory_mb"), write)
    specs = data["checks"]
    wanted = [c for c in specs if checks is None or c in checks]
    rows, held = {}, []
    for row in run_project(project, where, checks):
        rows[row.check] = row
        held.append(row)
        settled = [r for r in held if not prediction.waiting(specs[r.check], rows, wanted)]
        for done in sorted(settled, key=lambda r: r.final_only):
            held.remove(done)
            write(row_line(done, specs[done.check], rows))
    for row in held:
        write(row_line(row, specs[row.check], rows))
    for line in total_lines(project, [rows[c] for c in wanted], specs, rows):
        write(line)
    return sum(row.score for row in rows.values() if not row.final_only)


def row_line(row, spec: dict, rows: dict) -> str:
    mark = "----" if row.final_only else "pass" if row.passed else ("part" if row.score > 0 else "fail")
    earned = "-" if row.final_only else score(row.score)
    message = prediction.said(row, spec, rows)
    if not row.final_only and message.startswith(prediction.LOST):  # the next step first, what was seen here after
        message = f"{message}. Here: {row.message}"
    elif not row.final_only:
        message = f"{row.message}; {message}" if message else row.message
    return f"  {row.check:<22} {earned:>4}/{score(row.points):<3} {mark}  {message or row.message}"


def total_lines(project: str, listed: list, specs: dict, rows: dict) -> list[str]:
    """The points earned here of those checkable here, and what final grading is predicted to give of them all."""
    here = [row for row in listed if not row.final_only]
    earned, checkable = round(sum(r.score for r in here), 2), sum(r.points for r in here)
    points, left = sum(r.points for r in listed), sum(r.points for r in listed if r.final_only)
    lines = [f"  {project} total: {score(earned)}/{score(checkable)} on the public seeds ({score(checkable)} of "
             f"{score(points)} points checkable here)."]
    guesses = [prediction.predicted(row, specs[row.check], rows) for row in listed]
    if None not in guesses:
        low = round(sum(guesses), 2)
        high = round(sum(prediction.ceiling(row, specs[row.check], rows) for row in listed), 2)
        lines.append(f"  Predicted at final grading: {score(low)}/{score(points)}"
                     + (f" at least, {score(high)}/{score(points)} at most (the rows that say \"or up to\" are those "
                        "this run cannot tell)" if high != low else "")
                     + (f", counting the {score(left)} points of rows marked ---- as far as this run can tell (whole, "
                        "or as their evidence here says, where everything they build on passes)" if left else "")
                     + ". Final grading runs the same checks with seeds you do not see.")
    return lines


def start(project: str, into: Path) -> Path:
    data = expected(project)
    source, target = PROJECT_FILES / data["folder"], into / data["folder"]
    if target.exists():
        raise CheckerError(f"{target} exists already; your work is kept (remove it to start afresh)")
    shutil.copytree(source, target)
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="capstone-check", description="Run a capstone project's public checks.")
    parser.add_argument("project", nargs="*", help=f"project ids ({', '.join(projects())}); 'start P' copies P's "
                        "files here")
    parser.add_argument("--folder", type=Path, help="the project folder (default: found from here)")
    parser.add_argument("--checks", help="comma-separated check ids (default: all public checks)")
    args = parser.parse_args(argv)
    try:
        if args.project[:1] == ["start"]:
            for project in args.project[1:]:
                print(f"made {start(project.upper(), Path.cwd())}")
            return
        chosen = [p.upper() for p in args.project] or [p for p in projects()
                                                      if find_folder(expected(p)["folder"], Path.cwd())]
        if not chosen:
            raise CheckerError("no project folder found here; name a project (e.g. `capstone-check D`)")
        checks = args.checks.split(",") if args.checks else None
        for project in chosen:
            check(project, args.folder, checks)
    except CheckerError as exc:
        print(f"capstone-check: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
