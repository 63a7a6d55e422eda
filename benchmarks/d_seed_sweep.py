"""Benchmark: do D's bars hold for the reference on any seed, and by what margin?

    .venv/bin/python -m benchmarks.d_seed_sweep [--seeds 40] [--first 1000]

Runs the reference's K-sweep (K = 1, 4, 8, 32 at 6400 responses per prompt) and beta sweep (K = 32, 400 steps) on
many seeds, in parallel processes, and prints the worst value of each graded quantity next to its bar.
"""

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from tqdm import tqdm

from autograder.loader import load_course
from benchmarks.reference import reference_module
from rlkit import toy

KIT = Path(__file__).resolve().parent.parent
grpo = reference_module("D_grpo", "grpo")


def one_seed(seed: int, ks, betas) -> tuple[list[float], list[float]]:
    success = [toy.success(toy.policy(grpo.train(K, toy.verify, np.random.default_rng(seed), 6400 // K,
                                                  step=grpo.grpo_step)), toy.verify) for K in ks]
    hedge = [toy.hedge_probability(toy.policy(grpo.train(32, toy.sloppy, np.random.default_rng(seed), 400,
                                                          step=grpo.grpo_step, beta=beta))) for beta in betas]
    return success, hedge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    checks = load_course(private=False).projects["D"].checks
    k_bar, beta_bar = checks["D.k_sweep"].bar, checks["D.beta_sweep"].bar
    ks, betas = k_bar["ks"], beta_bar["betas"]
    seeds = range(args.first, args.first + args.seeds)
    with ProcessPoolExecutor(args.jobs) as pool:
        runs = list(tqdm(pool.map(one_seed, seeds, [ks] * len(seeds), [betas] * len(seeds)), total=len(seeds)))
    success, hedge = np.array([r[0] for r in runs]), np.array([r[1] for r in runs])
    reference = toy.success(toy.PI_REF, toy.verify)
    print(f"{len(seeds)} seeds ({seeds.start}..{seeds.stop - 1})")
    print(f"K = 1: max |success - {reference:.4f}| = {np.abs(success[:, 0] - reference).max():.2e}"
          f"  (bar: <= {k_bar['k1_tolerance']})")
    for j, K in enumerate(ks[1:], start=1):
        print(f"K = {K}: min success {success[:, j].min():.4f}  (bar: >= {k_bar['ceiling']})")
    for j, beta in enumerate(betas):
        print(f"beta = {beta}: hedge min {hedge[:, j].min():.4f}, median {np.median(hedge[:, j]):.4f}, "
              f"max {hedge[:, j].max():.4f}")
    rises = int(np.any(np.diff(hedge, axis=1) > 0, axis=1).sum())
    print(f"hedge at beta = 0 (bar >= {beta_bar['hedge_at_zero_min']}): min {hedge[:, 0].min():.4f}; "
          f"beta >= {beta_bar['suppressed_from']} (bar <= {beta_bar['hedge_suppressed_max']}): "
          f"max {hedge[:, np.array(betas) >= beta_bar['suppressed_from']].max():.4f}; "
          f"runs where the hedge rose with beta: {rises}")


if __name__ == "__main__":
    main()
