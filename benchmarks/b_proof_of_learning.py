"""Benchmark: B's proof of learning on the reference, every setting, without the sandbox.

    .venv/bin/python benchmarks/b_proof_of_learning.py [--sets 1] [--first 0] [--updates 60] [--settings a,b]

For each seed set (three seeds from a fixed draw, so ``--first`` continues a sweep) and each setting (the baseline and
each of the nine details flipped, unless --settings names some), trains the reference's run with the kit's loop and
its details.py pieces, as B.table's and B.bar's child does (``proofs.recorded_runs``), and audits it as their judge
does (``proofs.replay``); prints a line per run (so a sweep stopped early says what it did), then the runs whose
replay departed (false fails) and the median seconds of training and of the audit. Budget and tolerance from
course.yml's B.bar, hyperparameters from the reference's Config.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from autograder import paths  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.projects.b_ablations import proofs  # noqa: E402
from autograder.projects.b_ablations.catalogue import DETAILS  # noqa: E402
from autograder.student import Student  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="skip this many seed sets (to continue a sweep)")
    parser.add_argument("--updates", type=int, default=0, help="default: course.yml's n_updates")
    parser.add_argument("--settings", default="", help="comma-separated settings (default: baseline and all nine)")
    args = parser.parse_args()
    bar = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.bar"].bar
    rbar = proofs.ReplayBar(num_envs=bar["num_envs"], n_steps=bar["n_steps"],
                            n_updates=args.updates or bar["n_updates"], replay_tolerance=bar["replay_tolerance"])
    names = args.settings.split(",") if args.settings else ["baseline", *DETAILS]
    pool = np.random.default_rng(15).choice(2 ** 32, size=(args.first + args.sets, 3), replace=False)
    student = Student(paths.SOLUTIONS / "B_ablations", ("ppo", "details", "ablation"))
    fails, trained, audited = [], [], []
    for triple in pool[args.first:].tolist():
        for seed in triple:
            for name in names:
                started = time.perf_counter()
                with threadpool_limits(limits=1):  # as the sandboxed child
                    run_ = proofs.recorded_runs(student, [name], seed, rbar)["settings"][name]
                trained.append(time.perf_counter() - started)
                started = time.perf_counter()
                with threadpool_limits(limits=1):  # as the grader's audit process
                    _, failure = proofs.replay(run_, seed, rbar)
                audited.append(time.perf_counter() - started)
                if failure:
                    fails.append((seed, name, failure))
                print(f"  seed {seed}, {name}: " + (failure or "followed the replay")
                      + f" (training {trained[-1]:.1f} s, audit {audited[-1]:.1f} s)", flush=True)
    print(f"{len(fails)} false fails in {len(trained)} runs ({args.sets} sets of 3 seeds, {len(names)} settings); "
          f"median training {np.median(trained):.2f} s, audit {np.median(audited):.2f} s per run", flush=True)


if __name__ == "__main__":
    main()
