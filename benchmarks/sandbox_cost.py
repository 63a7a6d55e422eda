"""Benchmark: what bubblewrap adds to one check, measured on a cheap check run many times.

    .venv/bin/python -m benchmarks.sandbox_cost [--runs 30] [--check D.kl_penalty]

Runs the check on the reference, one child at a time, with ``limits.isolation: uid`` (no bubblewrap: the uid drop
and the limits alone) and ``bubblewrap``, alternating so that a busy moment of a shared machine hits both, and prints
the median wall time of each and their difference: the sandbox's cost per check.
"""

import argparse
import statistics
import time
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.projects import PROJECTS
from autograder.sandbox import runtime
from autograder.sandbox.runner import run_check

KIT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--check", default="D.kl_penalty")
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    pid = args.check.split(".")[0]
    request = {"project": pid, "check": args.check, "folder": str(paths.SOLUTIONS / PROJECTS[pid].folder),
               "seeds": course.seeds_for("public"), "seed_set": "public",
               "bar": course.projects[pid].checks[args.check].bar}
    times = {"uid": [], "bubblewrap": []}
    with runtime.staged() as runtime_dir:
        for _ in range(args.runs):
            for mode in times:
                limits = course.limits_for(pid, args.check).model_copy(update={"isolation": mode})
                started = time.perf_counter()
                outcome = run_check(request, limits, runtime_dir)
                times[mode].append(time.perf_counter() - started)
                if outcome.status != "ok":
                    raise SystemExit(f"{mode}: {outcome.status} {outcome.message}")
    medians = {mode: statistics.median(t) * 1000 for mode, t in times.items()}
    for mode, t in times.items():
        print(f"{mode:10s} median {medians[mode]:7.1f} ms (min {min(t) * 1000:.1f}, max {max(t) * 1000:.1f}) "
              f"over {args.runs} runs of {args.check}")
    print(f"bubblewrap adds {medians['bubblewrap'] - medians['uid']:.1f} ms per check "
          f"({medians['bubblewrap'] / medians['uid']:.2f}x)")


if __name__ == "__main__":
    main()
