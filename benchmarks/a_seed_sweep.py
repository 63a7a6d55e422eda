"""Benchmark: does A's bar hold for the reference on any grading-seed triple, and how early does it get there?

    .venv/bin/python -m benchmarks.a_seed_sweep [--triples 20] [--first 5000] [--write-band]
    .venv/bin/python -m benchmarks.a_seed_sweep --triples 67 --set epochs=10 --set lr=0.003 --num-envs 32

Trains the reference on 3 x TRIPLES distinct seeds (in parallel processes, one BLAS thread each, as the grader runs
them), evaluates each returned policy exactly as the A.bar check does, and also a snapshot taken after update 30.
Prints the per-triple medians, the false fails and the median wall time of one run; --write-band stores the
reference's learning-curve band that the report draws behind a student's curves. ``--set FIELD=VALUE`` (repeatable)
trains with another value of a field of ``ppo.Config`` and ``--num-envs``/``--n-steps`` with another batch shape than
course.yml's, to compare candidate configurations on the same seeds.
"""

import argparse
import copy
import dataclasses
import functools
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
KIT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from autograder.loader import load_course  # noqa: E402
from autograder.projects.a_ppo.plots import REFERENCE_BAND  # noqa: E402
from autograder.projects._shared.ppo.recording import BudgetedEnvs, per_update_returns  # noqa: E402
from benchmarks.reference import reference_module  # noqa: E402
from rlkit.cartpole import evaluate, make_envs  # noqa: E402

ppo = reference_module("A_ppo", "ppo")

BAR = load_course(private=False).projects["A"].checks["A.bar"].bar


def one_seed(seed: int, config=None, num_envs: int = BAR["num_envs"], n_steps: int = BAR["n_steps"]
             ) -> tuple[float, float, list, float]:
    """(evaluation after 60 updates, evaluation after 30 updates, per-update training returns, training seconds)."""
    config = config or ppo.Config()
    snapshot, original = {}, ppo.ppo_update

    def update_and_keep(agent, *args):
        stats = original(agent, *args)
        snapshot.setdefault("calls", 0)
        snapshot["calls"] += 1
        if snapshot["calls"] == 30:
            snapshot["actor"] = copy.deepcopy(agent["actor"])
        return stats

    ppo.ppo_update = update_and_keep
    envs = BudgetedEnvs(make_envs(num_envs), BAR["n_updates"], n_steps)
    started = time.perf_counter()
    agent, _ = ppo.train(envs, BAR["n_updates"], n_steps, seed, config)
    seconds = time.perf_counter() - started
    final = float(np.median(evaluate(agent["actor"], BAR["eval_episodes"], seed=10_007 * seed + 1)))
    early = float(np.median(evaluate(snapshot["actor"], BAR["eval_episodes"], seed=10_007 * seed + 2)))
    return final, early, per_update_returns(envs.finished, BAR["n_updates"]), seconds


def with_overrides(config, settings: list[str]):
    """``config`` with each ``FIELD=VALUE`` applied, the value cast to the field's type."""
    for setting in settings:
        name, _, value = setting.partition("=")
        kind = type(getattr(config, name))
        config = dataclasses.replace(config, **{name: kind(value)})
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triples", type=int, default=20)
    parser.add_argument("--first", type=int, default=5000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write-band", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="train with another value of a ppo.Config field")
    parser.add_argument("--num-envs", type=int, default=BAR["num_envs"])
    parser.add_argument("--n-steps", type=int, default=BAR["n_steps"])
    args = parser.parse_args()
    if args.write_band and (args.set or (args.num_envs, args.n_steps) != (BAR["num_envs"], BAR["n_steps"])):
        parser.error("--write-band stores the band of the given configuration: drop --set, --num-envs, --n-steps")
    config = with_overrides(ppo.Config(), args.set)
    seeds = list(range(args.first, args.first + 3 * args.triples))
    job = functools.partial(one_seed, config=config, num_envs=args.num_envs, n_steps=args.n_steps)
    with ProcessPoolExecutor(args.jobs) as pool:
        runs = list(tqdm(pool.map(job, seeds), total=len(seeds), desc="reference runs"))
    print(f"{config}, {args.num_envs} envs x {args.n_steps} steps; one run: median "
          f"{np.median([r[3] for r in runs]):.2f} s")
    final, early = np.array([r[0] for r in runs]), np.array([r[1] for r in runs])
    triples = np.median(final.reshape(-1, 3), axis=1)
    print(f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}), {args.triples} triples")
    print(f"per-seed evaluated return after {BAR['n_updates']} updates: median {np.median(final):.0f}, "
          f"min {final.min():.0f}, seeds at or below {BAR['threshold']}: {(final <= BAR['threshold']).sum()}")
    weak = [(seed, int(value)) for seed, value in zip(seeds, final) if value <= BAR["threshold"]]
    print(f"seeds at or below the bar (seed, evaluated return): {weak}")
    print(f"per-triple median: min {triples.min():.0f}; false fails (median <= {BAR['threshold']}): "
          f"{(triples <= BAR['threshold']).sum()} of {args.triples}")
    print(f"after 30 updates: median over seeds {np.median(early):.0f}, min {early.min():.0f}, "
          f"per-triple medians min {np.median(early.reshape(-1, 3), axis=1).min():.0f}")
    if args.write_band:
        curves = np.array([[np.nan if v is None else v for v in r[2]] for r in runs], dtype=float)
        band = {"seeds": len(seeds), "low": np.nanmin(curves, 0).round(1).tolist(),
                "high": np.nanmax(curves, 0).round(1).tolist(), "median": np.nanmedian(curves, 0).round(1).tolist(),
                "command": "benchmarks/a_seed_sweep.py --write-band"}
        REFERENCE_BAND.write_text(json.dumps(band) + "\n")
        print(f"wrote {REFERENCE_BAND}")


if __name__ == "__main__":
    main()
