"""The judge's half of the proof of learning: every update of a run replayed with the reference, from the student's
own parameters before it, on the batch those parameters collect (see ``proof``)."""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.proof import Recipe, load, parameters, run
from rlkit.cartpole import make_envs


class Departed(Exception):
    """The student's parameters after an update are not what the update makes of the parameters before it."""

    def __init__(self, update: int, gap: float, index: int):
        super().__init__(update, gap, index)
        self.update, self.gap, self.index = update, gap, index  # update counted from 1


def audit(snapshots: np.ndarray, seed: int, num_envs: int, n_steps: int, recipe: Recipe, tolerance: float) -> list:
    """The (update, return) of every episode the run finished, from the judge's own rollouts; raises ``Departed``
    at the first update whose replay, from snapshot k - 1 (the grader's init for k = 1), is farther than
    ``tolerance`` from snapshot k in some parameter. Each replay starts from the student's snapshot, so rounding
    does not accumulate, and the replay stops at the first departure."""
    episodes = []

    def before(k, agent):
        if k:
            load(agent, snapshots[k - 1])

    def after(k, agent, segment):
        episodes.extend((k, float(r)) for r in segment.episode_returns)
        gaps = np.abs(snapshots[k].astype(float) - parameters(agent))
        gaps[~np.isfinite(gaps)] = np.inf
        if not gaps.max() <= tolerance:
            raise Departed(k + 1, float(gaps.max()), int(np.argmax(gaps)))

    envs = make_envs(num_envs)
    try:
        run(envs, seed, len(snapshots), n_steps, recipe, before, after)
    finally:
        envs.close()
    return episodes


def departure(exc: Departed, n_updates: int, tolerance: float) -> str:
    """The sentence a student reads: which update did not follow from the one before, and by how much."""
    start = "the grader's initial parameters" if exc.update == 1 else f"your parameters after update {exc.update - 1}"
    return (f"update {exc.update} of {n_updates} did not follow from the one before: the reference's update from "
            f"{start}, on the batch they collect, gives parameters {exc.gap:.3g} away from yours after update "
            f"{exc.update} (parameter {exc.index}; tolerance {tolerance:g}). Only training done by your pieces in "
            "the kit's loop, from the grader's initial parameters and seed, counts")
