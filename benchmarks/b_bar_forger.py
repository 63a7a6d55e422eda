"""Benchmark: what B.bar's bound lets a forger do to the course's metric.

    .venv/bin/python -m benchmarks.b_bar_forger [--settings baseline,multiple_epochs] [--seeds 7,8,9]

Per (setting, seed), trains the grader's run (``bar_runs.grader_recipe``) three times with course.yml's B.bar
budget and hyperparameters: honestly; with every weight, after each update k, moved by the most the bound admits an
update (``replay_tolerance`` + 9.21 ``moment_tolerance`` lr_k, docs/design-notes.md) against that update's own move;
and along it. Prints the course's metric (mean training return over the updates) of each. An upper bound on what a
forger steering within B.bar's tolerances can add to or take from learning: a forger steering through Adam's m
moves an update by at most this.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
from threadpoolctl import threadpool_limits


from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared.ppo.recording import per_update_returns
from autograder.projects._shared.proof import load, parameters, run
from autograder.projects.b_ablations import bar_runs, oracle
from rlkit.cartpole import make_envs


def metric(bar: dict, setting: str, seed: int, sign: int) -> float:
    """The course's metric of one run, each update pushed by the bound along (+1) or against (-1) itself, or not."""
    c = bar["hyperparameters"]
    recipe = bar_runs.grader_recipe(c if isinstance(c, dict) else c.model_dump(), setting, bar["n_updates"])
    episodes, k = [], [0]

    def update(agent, optimizer, batch, rng):
        before = parameters(agent).astype(float)
        recipe.update(agent, optimizer, batch, rng)
        if sign:
            after = parameters(agent).astype(float)
            most = bar["replay_tolerance"] + 9.21 * bar["moment_tolerance"] * recipe.lr(k[0])
            load(agent, after + sign * np.sign(after - before) * most)
        k[0] += 1

    envs = make_envs(bar["num_envs"])
    try:
        with threadpool_limits(limits=1):
            run(envs, seed, bar["n_updates"], bar["n_steps"], replace(recipe, update=update),
                after=lambda u, agent, segment: episodes.extend((u, float(r)) for r in segment.episode_returns))
    finally:
        envs.close()
    return oracle.training_score(per_update_returns(episodes, bar["n_updates"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="baseline,multiple_epochs")
    parser.add_argument("--seeds", default="7,8,9")
    args = parser.parse_args()
    bar = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.bar"].bar
    for setting in args.settings.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            honest, against, along = (metric(bar, setting, seed, sign) for sign in (0, -1, 1))
            print(f"{setting}, seed {seed}: honest {honest:.1f}, pushed against each update {against:.1f}, along "
                  f"each update {along:.1f}", flush=True)


if __name__ == "__main__":
    main()
