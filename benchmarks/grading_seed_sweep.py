"""Benchmark: false fails of the reference on random grading-seed sets, per check.

    .venv/bin/python -m benchmarks.grading_seed_sweep [--sets 10] [--size 3] [--projects A,B,C,D] [--checks IDS]
                                                     [--submission DIR] [--rng 0] [--jobs 2]

Each set draws ``--size`` distinct seeds uniformly from numpy's whole seed range (0 to 2**32 - 1), in the order drawn
(so almost never sorted), and grades the bundled reference (or ``--submission``, e.g. a correct implementation
written differently) with them as the grading seeds, exactly as an instructor's course.private.yml would. A check the
reference does not pass in full is a false fail: the figure should be 0.
Prints each set's failures as they happen and a table of false fails per check at the end.
"""

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.config import MAX_SEED
from autograder.loader import load_course
from autograder.grading import grade

KIT = Path(__file__).resolve().parent.parent


def seed_sets(count: int, size: int, rng_seed: int) -> list[list[int]]:
    rng = np.random.default_rng(rng_seed)
    return [[int(s) for s in rng.choice(MAX_SEED + 1, size=size, replace=False)] for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--size", type=int, default=3, help="seeds per set (the course allows 1 to 10)")
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--checks", default="", help="only these checks, comma-separated (default: every check of "
                        "the projects)")
    parser.add_argument("--submission", default=str(paths.SOLUTIONS), help="the folder graded (default: the "
                        "bundled reference)")
    parser.add_argument("--rng", type=int, default=0, help="seed of the draw of the seed sets")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    base = load_course(paths.COURSE_FILE, private=False)
    projects, checks = args.projects.split(","), [c for c in args.checks.split(",") if c] or None
    fails, graded = Counter(), Counter()
    for i, seeds in enumerate(seed_sets(args.sets, args.size, args.rng)):
        course = base.model_copy(update={"seeds": base.seeds.model_copy(update={"grading": seeds})})
        started = time.perf_counter()
        report = grade(args.submission, course, seed_set="grading", projects=projects, checks=checks,
                       jobs=args.jobs).report
        missed = []
        for check in report.checks():
            graded[check.id] += 1
            if not check.passed:
                fails[check.id] += 1
                missed.append(f"{check.id} {check.score:g}/{check.max_score:g}: {check.message[:160]}")
        print(f"set {i + 1:2d} {seeds}: {report.score:g}/{report.max_score:g} "
              f"in {time.perf_counter() - started:.0f} s" + "".join(f"\n    {m}" for m in missed), flush=True)
    print(f"\nfalse fails of {args.submission} over {args.sets} random sets of {args.size} seeds "
          f"(draw seed {args.rng}):")
    for check_id in graded:
        print(f"  {check_id:22s} {fails[check_id]:3d} / {graded[check_id]}")
    print(f"  {'total':22s} {sum(fails.values()):3d} / {sum(graded.values())}")


if __name__ == "__main__":
    main()
