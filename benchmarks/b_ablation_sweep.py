"""Which PPO details clear Project B's bar on CartPole, and how often: every detail flipped, over many seeds.

Runs the reference's ``details.train`` for the baseline and each of the nine details flipped, on ``--seeds`` seeds
(one BLAS thread per run, in parallel processes), with the course's budget and metric. Prints, per detail, the median
change of the metric against the baseline over all seeds, and the share of seed triples (disjoint, in order) on which
the detail clears the chapter's bar as the grader judges it (|change of the median| > the larger max - min).

    python -m benchmarks.b_ablation_sweep --seeds 12 [--json out.json] [--details multiple_epochs,anneal_lr]
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from autograder import paths
from autograder.loader import load_course
from autograder.projects.b_ablations import oracle
from benchmarks.reference import reference_module



def run(job) -> float:
    details = reference_module("B_ablations", "details", "ppo")
    from rlkit.cartpole import make_envs

    name, seed, bar = job
    with threadpool_limits(limits=1):
        _, log = details.train(make_envs(bar["num_envs"]), bar["n_updates"], bar["n_steps"], seed,
                               details=details.Details(**oracle.flipped(None if name == "baseline" else name)))
    return oracle.training_score([entry["episode_return"] for entry in log])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write every score here")
    parser.add_argument("--details", help="flip only these details (comma-separated; default: all nine)")
    args = parser.parse_args()
    bar = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.bar"].bar
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    flipped = args.details.split(",") if args.details else list(oracle.DETAILS)
    unknown = sorted(set(flipped) - set(oracle.DETAILS))
    if unknown:
        parser.error(f"unknown details {unknown}; known: {', '.join(oracle.DETAILS)}")
    names = ["baseline", *flipped]
    jobs = [(name, seed, bar) for name in names for seed in seeds]
    with ProcessPoolExecutor(args.workers) as pool:
        done = list(tqdm(pool.map(run, jobs), total=len(jobs), unit="run", desc="ablation sweep"))
    scores = {name: done[i * len(seeds):(i + 1) * len(seeds)] for i, name in enumerate(names)}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seeds": seeds, "budget": bar, "scores": scores}, f, indent=1)
    triples = [slice(i, i + 3) for i in range(0, len(seeds) - 2, 3)]
    base = np.array(scores["baseline"])
    print(f"{len(seeds)} seeds, {bar['n_updates']} updates of {bar['num_envs']} x {bar['n_steps']}; metric: mean "
          f"training return over the updates. Baseline median {np.median(base):.1f} (min {base.min():.1f}, "
          f"max {base.max():.1f})")
    print(f"{'detail flipped':24s} {'median':>7s} {'change':>7s} {'min':>7s} {'max':>7s}  clears the bar on")
    for name in flipped:
        s = np.array(scores[name])
        cleared = sum(oracle.matters({"baseline": list(base[t]), name: list(s[t])}, name) for t in triples)
        print(f"{name:24s} {np.median(s):7.1f} {np.median(s) - np.median(base):+7.1f} {s.min():7.1f} {s.max():7.1f}  "
              f"{cleared}/{len(triples)} triples")


if __name__ == "__main__":
    main()
