"""Benchmark: how soon a student sees a verdict. Per project, the time from starting the students' checker
(``python -m capstone_check P``) on the reference to its first row and to its last, and the full kit's
``autograder check P`` (which prints its table once every check is done) for comparison with ``--kit`` (B's takes
minutes: its table and bar re-run and replay every training run).

    .venv/bin/python benchmarks/check_latency.py [--projects A,B,C,D] [--runs 3] [--bundle DIR] [--kit]

The bundle is built into a temporary folder unless ``--bundle`` names one. Prints the median over the runs, the
machine's CPU count and its load average (the figures mean little on a busy machine: say so beside them).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from autograder.projects import PROJECTS  # noqa: E402
from autograder.student_kit import build  # noqa: E402


def is_verdict(line: str) -> bool:
    """Whether a line of output is the row of a check that ran: a check's id first, and not the students' checker's
    "----" row of a check left to final grading (printed once the rows it builds on have finished)."""
    words = line.replace("│", " ").split()
    return bool(words) and words[0][:2] in ("A.", "B.", "C.", "D.") and "----" not in words[:3]


def rows_over_time(command: list[str], cwd: Path, env: dict) -> list[float]:
    """Seconds from the start to each line of output that is the verdict of a check that ran."""
    started, times = time.perf_counter(), []
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as proc:
        for line in proc.stdout:
            if is_verdict(line):
                times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--kit", action="store_true", help="time the full kit's `autograder check` too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = args.bundle or build(KIT, Path(tmp) / "kit")
        student_env = {**os.environ, "PYTHONPATH": str(bundle), "CI": "1"}
        kit_env = {**os.environ, "CI": "1"}
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        print(f"{'project':8} {'first row':>10} {'last row':>10} {'kit (table)':>12}")
        for pid in args.projects.split(","):
            folder = KIT / "solutions" / PROJECTS[pid].folder
            first, last, kit = [], [], []
            for _ in range(args.runs):
                times = rows_over_time([sys.executable, "-m", "capstone_check", pid, "--folder", str(folder)],
                                       Path(tmp), student_env)
                first.append(times[0])
                last.append(times[-1])
                if args.kit:
                    started = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "autograder", "check", pid], cwd=folder, env=kit_env,
                                   capture_output=True, check=True)
                    kit.append(time.perf_counter() - started)
            shown = f"{statistics.median(kit):11.1f}s" if kit else f"{'-':>12}"
            print(f"{pid:8} {statistics.median(first):9.1f}s {statistics.median(last):9.1f}s {shown}")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
