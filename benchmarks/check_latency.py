"""Benchmark: how soon a student sees a verdict. Per project, the time from starting the students' checker
(``python -m capstone_check P``) on the reference to its first row and to its last, and the full kit's
``autograder check P`` (which prints its table once every check is done) for comparison with ``--kit`` (B's takes
minutes: its table and bar re-run and replay every training run).

    .venv/bin/python -m benchmarks.check_latency [--projects A,B,C,D] [--runs 3] [--bundle DIR] [--kit]
    .venv/bin/python -m benchmarks.check_latency --projects D --vs OLD_BUNDLE   # this bundle and an earlier one

The bundle is built into a temporary folder unless ``--bundle`` names one. With ``--vs`` the runs of the two bundles
alternate (this one's, then the earlier one's), so a machine's changing load weighs on both alike. Prints the median
over the runs, the CPU seconds of the whole run (``cpu_meter``: the checker and every child), the machine's CPU count
and its load average (the figures mean little on a busy machine: say so beside them).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cpu_meter import Meter
from autograder.projects import PROJECTS
from autograder.student_kit import build

KIT = Path(__file__).resolve().parent.parent


def is_verdict(line: str) -> bool:
    """Whether a line of output is the row of a check that ran: a check's id first, and not the students' checker's
    "----" row of a check left to final grading (printed once the rows it builds on have finished)."""
    words = line.replace("│", " ").split()
    return bool(words) and words[0][:2] in ("A.", "B.", "C.", "D.") and "----" not in words[:3]


def rows_over_time(command: list[str], cwd: Path, env: dict) -> tuple[list[float], float]:
    """Seconds from the start to each line of output that is the verdict of a check that ran, and the CPU seconds of
    the whole run."""
    started, times = time.perf_counter(), []
    with Meter() as meter:
        with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, preexec_fn=meter.enter) as proc:
            for line in proc.stdout:
                if is_verdict(line):
                    times.append(time.perf_counter() - started)
        return times, meter.seconds()


def timed(bundles: dict[str, Path], pid: str, runs: int, cwd: Path, kit: bool) -> dict[str, dict[str, list]]:
    """Per bundle: the seconds to the first and last row and the CPU seconds of each run, the bundles in turn."""
    folder = KIT / "solutions" / PROJECTS[pid].folder
    found = {name: {"first": [], "last": [], "cpu": [], "kit": []} for name in bundles}
    for _ in range(runs):
        for name, bundle in bundles.items():
            env = {**os.environ, "PYTHONPATH": str(bundle), "CI": "1"}
            times, cpu = rows_over_time([sys.executable, "-m", "capstone_check", pid, "--folder", str(folder)],
                                        cwd, env)
            found[name]["first"].append(times[0])
            found[name]["last"].append(times[-1])
            found[name]["cpu"].append(cpu)
        if kit:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "autograder", "check", pid], cwd=folder,
                           env={**os.environ, "CI": "1"}, capture_output=True, check=True)
            found[next(iter(bundles))]["kit"].append(time.perf_counter() - started)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--vs", type=Path, help="an earlier bundle, timed in turn with this one")
    parser.add_argument("--kit", action="store_true", help="time the full kit's `autograder check` too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bundles = {"this": args.bundle or build(KIT, Path(tmp) / "kit"), **({"earlier": args.vs} if args.vs else {})}
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; CPU from {Meter().how}")
        print(f"{'project':8} {'bundle':8} {'first row':>10} {'last row':>10} {'CPU':>8} {'kit (table)':>12}  "
              "last rows of each run")
        for pid in args.projects.split(","):
            for name, found in timed(bundles, pid, args.runs, Path(tmp), args.kit).items():
                kit = f"{statistics.median(found['kit']):11.1f}s" if found["kit"] else f"{'-':>12}"
                each = ", ".join(f"{t:.1f}" for t in found["last"])
                print(f"{pid:8} {name:8} {statistics.median(found['first']):9.1f}s "
                      f"{statistics.median(found['last']):9.1f}s {statistics.median(found['cpu']):7.1f}s {kit}  {each}")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
