"""The reference's own runs on the public seeds, released with the students' checker so that it can tell whether a
student's pieces remake them (``capstone_check.kinds.a_remade``): what A.bar's final grading turns on, told without
releasing the reference's pieces.

Each run is the kit's loop with the reference's pieces (the judge's recipe), as the checker's training makes it. For
a sample of its updates it keeps the state before the update (parameters, Adam's m and v, float32 and exact, Adam's
step count and the random numbers' state) and the state after; and every action, one bit each, for the checker to
step its environments past the updates it does not make.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from autograder.projects._shared.proof import run
from autograder.projects.a_ppo.training import reference_recipe
from rlkit.cartpole import make_envs
from rlkit.runproof import parameters

SAMPLED = 10  # updates per run: a piece that departs where training reaches departs at most of a run's updates
FILE = "A.bar.npz"


def sampled_updates(n_updates: int, count: int = SAMPLED) -> list[int]:
    """``count`` updates (indices from 0) spread evenly over the run, the first and the last among them."""
    return sorted({int(k) for k in np.linspace(0, n_updates - 1, count).round()})


def state(agent, optimizer) -> np.ndarray:
    """Parameters, then Adam's m and v, as one float32 row."""
    return np.concatenate([parameters(agent), optimizer.m, optimizer.v]).astype(np.float32)


def recorded_run(seed: int, bar: dict, updates: list[int]) -> tuple[dict, dict]:
    """The reference's run of ``seed``: (what the checker's spec holds: Adam's step count and the random numbers'
    state before each sampled update; the arrays: the states before and after them and every action, packed)."""
    reference, held = reference_recipe(bar["hyperparameters"], bar["n_updates"]), {}

    def init(rng):
        held["rng"] = rng
        return reference.init(rng)

    def optimizer(agent):
        held["optimizer"] = reference.optimizer(agent)
        return held["optimizer"]

    recipe = replace(reference, init=init, optimizer=optimizer)
    spec, before, after, actions = {"t": [], "rng": []}, [], [], []

    def starting(k, agent):
        if k in updates:
            before.append(state(agent, held["optimizer"]))
            spec["t"].append(held["optimizer"].t)
            spec["rng"].append(held["rng"].bit_generator.state)

    def ended(k, agent, segment):
        actions.append(segment.actions.astype(np.uint8))
        if k in updates:
            after.append(state(agent, held["optimizer"]))

    envs = make_envs(bar["num_envs"])
    try:
        run(envs, seed, bar["n_updates"], bar["n_steps"], recipe, starting, ended)
    finally:
        envs.close()
    arrays = {"before": np.array(before), "after": np.array(after), "actions": np.packbits(np.array(actions))}
    return spec, arrays


def reference_runs(bar: dict, seeds: list[int]) -> dict:
    """A.bar's spec entries for the checker: ``reference_runs`` (the file, the sampled updates, each seed's step
    counts and random states) and ``_files`` (the arrays, written beside the expected values)."""
    updates, seeds_spec, arrays = sampled_updates(bar["n_updates"]), {}, {}
    for seed in seeds:
        seeds_spec[str(seed)], made = recorded_run(seed, bar, updates)
        arrays.update({f"{seed}.{name}": array for name, array in made.items()})
    return {"reference_runs": {"file": FILE, "updates": updates, "seeds": seeds_spec}, "_files": {FILE: arrays}}
