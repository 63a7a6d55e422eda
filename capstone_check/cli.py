"""``capstone-check``: the students' command. ``capstone-check <project>`` runs the project's public checks on its
folder (found from the working directory); ``capstone-check start <project>`` copies the project's files to work in."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import threading
import time
from pathlib import Path

from capstone_check import prediction
from capstone_check.runner import CheckerError, expected, projects, run_project, say_limits_once

PROJECT_FILES = Path(__file__).parent / "projects"
MARK = 4  # the width of a row's status: pass, part, fail, ---- ("at risk: ..." is wider)


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


def watched() -> bool:
    """Whether a person watches the output at a terminal (not a pipe, a log file, a notebook or CI) that can redraw:
    only there is the table redrawn as rows finish."""
    stream = sys.stdout
    return (hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("CI")
            and os.environ.get("TERM") != "dumb" and cursor_moves())


def check(project: str, folder: Path | None, checks: list[str] | None = None, write=print,
          live: bool | None = None, stream=None) -> float:
    """Run one project's checks and print one table of them, a row per check in the course's order, then what was
    earned here, what is left to final grading and what final grading is predicted to give. At a terminal (``live``,
    by default when a person watches) the table fills in as the checks finish, redrawn in place; elsewhere it is
    printed once, when all have finished, so a log holds each row once. Returns the points earned here."""
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
    rows: dict = {}
    started = time.monotonic()
    screen = Screen(lambda: filling(wanted, specs, dict(rows), started), stream) \
        if (watched() if live is None else live) else None
    if screen is None:
        write(f"Running {len(wanted)} check{'s' * (len(wanted) != 1)}; the table follows when all have finished.")
    try:
        for row in run_project(project, where, checks):
            rows[row.check] = row
            if screen is not None:
                screen.redraw()
    finally:
        if screen is not None:
            screen.stop()
    for line in table(project, wanted, specs, rows):
        write(line)
    return sum(row.score for row in rows.values() if not row.final_only)


def table(project: str, wanted: list[str], specs: dict, rows: dict) -> list[str]:
    """The final table: every row in the course's order (course.yml's, which the expected values keep), its statuses
    aligned, then the footer."""
    listed = [rows[c] for c in wanted if c in rows]
    width = max([MARK, *(len(status(row, specs[row.check], rows)) for row in listed)])
    return [row_line(row, specs[row.check], rows, width) for row in listed] + total_lines(project, listed, specs, rows)


def filling(wanted: list[str], specs: dict, rows: dict, started: float) -> list[str]:
    """The table as it fills in, in the course's order: a row that has finished as the final table says it (or, while
    a row its prediction rests on still runs, its score and what it waits for), a row still running as such; last,
    how many have finished and the time since the start."""
    lines = []
    for cid in wanted:
        spec = specs[cid]
        if cid not in rows:
            lines.append(f"  {cid:<22} {'':>4}/{score(spec['points']):<3} {'....':<{MARK}}  running")
        elif prediction.waiting(spec, rows, wanted):
            pending = [c for c in (*spec.get("builds_on", ()), *spec.get("trusts", ())) if c in wanted and c not in
                       rows]
            row = rows[cid]
            earned = "-" if row.final_only else score(row.score)
            lines.append(f"  {cid:<22} {earned:>4}/{score(row.points):<3} {'....':<{MARK}}  finished; its prediction "
                         f"waits for {prediction.names(pending)}")
        else:
            lines.append(row_line(rows[cid], spec, rows))
    lines.append(f"  {sum(c in rows for c in wanted)} of {len(wanted)} checks finished, "
                 f"{time.monotonic() - started:.0f} s")
    return lines


class Screen:
    """The table redrawn in place on a terminal while the checks run, with the terminal's own cursor moves (the
    students' wheel depends on no library that draws), and erased when they have all finished: the final table is
    then printed once. Each line is cut to the terminal's width, so that the table is redrawn whole."""

    TICK = 0.5  # seconds between redraws of the time

    def __init__(self, lines, stream=None):
        self.lines, self.lock, self.done = lines, threading.Lock(), threading.Event()
        self.stream, self.height = stream or sys.stdout, 0
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()

    def _tick(self):
        while not self.done.wait(self.TICK):
            self.redraw()

    def _fitted(self) -> list[str]:
        width, height = shutil.get_terminal_size()
        lines = [line if len(line) < width else line[:max(width - 4, 1)] + "..." for line in self.lines()]
        return lines[-max(height - 1, 1):]

    def _erase(self) -> str:
        return f"\r\x1b[{self.height}A\x1b[J" if self.height else "\x1b[?25l"  # (the cursor hidden while drawing)

    def redraw(self) -> None:
        with self.lock:
            if self.done.is_set():
                return
            lines = self._fitted()
            self.stream.write(self._erase() + "".join(f"{line}\n" for line in lines))
            self.stream.flush()
            self.height = len(lines)

    def stop(self) -> None:
        with self.lock:
            if not self.done.is_set():
                self.done.set()
                self.stream.write(self._erase() + "\x1b[?25h")
                self.stream.flush()


def cursor_moves() -> bool:
    """Whether the terminal follows cursor moves: every terminal but an old Windows console, where they are turned on
    if they can be."""
    if os.name != "nt":
        return True
    try:
        import ctypes

        kernel = ctypes.windll.kernel32
        handle, mode = kernel.GetStdHandle(-11), ctypes.c_ulong()  # standard output
        return bool(kernel.GetConsoleMode(handle, ctypes.byref(mode)) and
                    kernel.SetConsoleMode(handle, mode.value | 0x0004))  # ENABLE_VIRTUAL_TERMINAL_PROCESSING
    except (AttributeError, OSError):
        return False


def status(row, spec: dict, rows: dict) -> str:
    """One status that never contradicts the row's prediction: ``----`` (left to final grading), ``pass``, ``part``
    or ``fail``; a row that earns more here than final grading is predicted to give it is ``at risk``, with that
    prediction."""
    if row.final_only:
        return "----"
    low = prediction.predicted(row, spec, rows)
    if low is not None and low < row.score:
        high = prediction.ceiling(row, spec, rows)
        most = f" to {score(high)}" if high is not None and high != low else ""
        return f"at risk: {score(low)}{most}/{score(row.points)} predicted"
    return "pass" if row.passed else ("part" if row.score > 0 else "fail")


def row_message(row, spec: dict, rows: dict) -> str:
    """A row's message as the table and a notebook's check cell show it: what was seen here, and what final grading
    adds (the next step first where the row is predicted to lose its points)."""
    message, seen = prediction.said(row, spec, rows), prediction.lead(row, spec, rows) + prediction.recognised(row)
    if row.aside:  # a prediction the public seeds leave open: after a row that passed, before one that failed
        seen = f"{seen}; {row.aside}" if row.passed else f"{row.aside}; {seen}"
    if not row.final_only and message.startswith(prediction.LOST):  # the next step first, what was seen here after
        message = f"{message}. Here: {seen}"
    elif not row.final_only:
        message = f"{seen}; {message}" if message else seen
    return message or row.message


def row_line(row, spec: dict, rows: dict, width: int = MARK) -> str:
    mark = status(row, spec, rows)
    earned = "-" if row.final_only else score(row.score)
    return f"  {row.check:<22} {earned:>4}/{score(row.points):<3} {mark:<{width}}  {row_message(row, spec, rows)}"


def total_lines(project: str, listed: list, specs: dict, rows: dict) -> list[str]:
    """The footer, three things apart: the points earned here of those checkable here, the points left to final
    grading (rows marked ----, and a note on them only where there are such rows), and what final grading is
    predicted to give of them all."""
    here = [row for row in listed if not row.final_only]
    earned, checkable = round(sum(r.score for r in here), 2), sum(r.points for r in here)
    points, left = sum(r.points for r in listed), sum(r.points for r in listed if r.final_only)
    lines = [f"  {project} total: {score(earned)}/{score(checkable)} earned here, on the public seeds "
             f"({score(checkable)} of {score(points)} points checkable here).",
             f"  Left to final grading: {score(left)} of the {score(points)} points"
             + (" (the rows marked ----, not run here)." if left else "; every row was checked here.")]
    guesses = [prediction.predicted(row, specs[row.check], rows) for row in listed]
    if None in guesses:
        lines.append(f"  Predicted at final grading: not known from this run; run every check of {project} to see.")
        return lines
    low = round(sum(guesses), 2)
    high = round(sum(prediction.ceiling(row, specs[row.check], rows) for row in listed), 2)
    lines.append(f"  Predicted at final grading: {score(low)}/{score(points)}"
                 + (f" at least, {score(high)}/{score(points)} at most (the rows that say \"or up to\" are those this "
                    "run cannot tell)" if high != low else "") + ".")
    if left:
        lines.append(f"  The prediction counts the {score(left)} points of rows marked ---- as far as this run can "
                     "tell: whole, or as their evidence here says, where everything they build on passes.")
    lines.append("  Final grading runs the same checks with seeds you do not see.")
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
