"""The reference's own runs, sampled for the students' checker: for some of a run's updates, the state before the
update and the state after it, so that the checker can make those updates again with a student's pieces and tell
whether they land where the reference's did (``_shared.public.ppo_remade``), without releasing the reference's
pieces.

A run is the kit's loop with the judge's recipe, as a graded run trains. Before each sampled update it keeps the
parameters and Adam's m and v (float32, exact), Adam's step count and the random numbers' state; after it, the
parameters and moments again; and every action up to the last sampled update, one bit each, for the checker to step
its environments past the updates it does not make.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from autograder.projects._shared.proof import Recipe, run
from rlkit.cartpole import make_envs
from rlkit.runproof import parameters


def sampled_updates(n_updates: int, count: int) -> list[int]:
    """``count`` updates (indices from 0) spread evenly over the run, the first and the last among them."""
    return sorted({int(k) for k in np.linspace(0, n_updates - 1, count).round()})


def state(agent, optimizer) -> np.ndarray:
    """Parameters, then Adam's m and v, as one float32 row."""
    return np.concatenate([parameters(agent), optimizer.m, optimizer.v]).astype(np.float32)


def recorded_run(reference: Recipe, seed: int, bar: dict, updates: list[int], n_updates: int | None = None,
                 episodes: list | None = None) -> tuple[dict, dict]:
    """The run of ``seed`` with the ``reference`` recipe, up to the last of ``updates`` (or ``n_updates`` of it):
    (what the checker's spec holds: Adam's step count and the random numbers' state before each sampled update; the
    arrays: the states before and after them and every action up to the last of them, packed). ``episodes``: a list
    to which each finished episode's (update, return) is added."""
    held = {}

    def init(rng):
        held["rng"] = rng
        return reference.init(rng)

    def optimizer(agent):
        held["optimizer"] = reference.optimizer(agent)
        return held["optimizer"]

    spec, before, after, actions = {"t": [], "rng": []}, [], [], []

    def starting(k, agent):
        if k in updates:
            before.append(state(agent, held["optimizer"]))
            spec["t"].append(held["optimizer"].t)
            spec["rng"].append(held["rng"].bit_generator.state)

    def ended(k, agent, segment):
        if k <= max(updates):
            actions.append(segment.actions.astype(np.uint8))
        if episodes is not None:
            episodes.extend((k, float(r)) for r in segment.episode_returns)
        if k in updates:
            after.append(state(agent, held["optimizer"]))

    envs = make_envs(bar["num_envs"])
    try:
        run(envs, seed, n_updates or max(updates) + 1, bar["n_steps"],
            replace(reference, init=init, optimizer=optimizer), starting, ended)
    finally:
        envs.close()
    arrays = {"before": np.array(before), "after": np.array(after), "actions": np.packbits(np.array(actions))}
    return spec, arrays
