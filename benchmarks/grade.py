"""Benchmark: grading the reference, as a whole command, wall time and peak memory of the process tree.

    .venv/bin/python benchmarks/grade.py [--projects A,D] [--runs 5] [--seeds grading] [--jobs 1] [--isolation uid]

Without --projects it grades every registered project, which is the figure to hold against Gradescope's default
container (10 minutes, 768 MB, run with --jobs 1). Prints each run and the median. Peak memory is the largest sum of
resident memory over the grader and all its children, sampled every 20 ms (psutil), so it is what a container's
memory limit would see.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from autograder.projects import PROJECTS  # noqa: E402


def cpu_of_children() -> float:
    """User + system CPU seconds of every finished descendant so far (they are all waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak resident MB of the whole process tree, CPU seconds of the whole tree)."""
    started, cpu_before = time.perf_counter(), cpu_of_children()
    proc = psutil.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [proc] + proc.children(recursive=True)
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.02)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {proc.returncode}")
    # CPU seconds are the figure a machine busy with other work inflates least
    return time.perf_counter() - started, peak / 2**20, cpu_of_children() - cpu_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seeds", default="grading", choices=["public", "grading"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--projects", default=",".join(PROJECTS), help="comma-separated project ids (default: all)")
    parser.add_argument("--isolation", choices=["auto", "bubblewrap", "uid"],
                        help="grade with this limits.isolation (a copy of course.yml), e.g. to price bubblewrap")
    args = parser.parse_args()
    command = [sys.executable, "-m", "autograder", "grade", str(KIT / "solutions"), "--projects", args.projects,
               "--seeds", args.seeds, "--jobs", str(args.jobs)]
    if args.isolation:
        course = yaml.safe_load((KIT / "course.yml").read_text())
        course["limits"]["isolation"] = args.isolation
        copy = Path(tempfile.mkdtemp()) / "course.yml"
        copy.write_text(yaml.safe_dump(course))
        command += ["--course", str(copy)]
    walls, peaks = [], []
    for run in range(args.runs):
        wall, peak, cpu = measure(command)
        walls.append(wall)
        peaks.append(peak)
        print(f"run {run + 1}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, peak {peak:6.1f} MB")
    print(f"grade {args.projects} (reference, {args.seeds} seeds, --jobs {args.jobs}), {args.runs} runs: "
          f"median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}); "
          f"peak memory median {statistics.median(peaks):.0f} MB (max {max(peaks):.0f} MB)")


if __name__ == "__main__":
    main()
