"""Proof of learning: a PPO training run the grader can check update by update.

The child runs the kit's own loop (``run``) with the student's pieces in a ``Recipe`` and hands back the parameters
after every update (``encode``). The judge runs the same loop with the reference's pieces (``audit``), starting each
update from the student's own parameters before it, and requires the student's parameters after it within a
tolerance. Everything random follows from the run's seed, in this order (the contract students are given):

1. ``rng = np.random.default_rng(seed)``; ``recipe.init(rng)`` draws the actor's layers, then the critic's;
2. per update: ``Rollout.collect`` draws one ``rng.random(num_envs)`` per vector step; then ``recipe.update`` draws
   (PPO: one ``rng.permutation(B)`` per epoch) and nothing else;
3. the environments are reset once, with ``seed``, and stepped only by the rollout.

Parameters are float32, updated in place; a snapshot is the actor's arrays then the critic's, flattened, in layer
order (weights, then bias). The child also hands back the actions it took (uint8). CartPole is deterministic given its
reset seed and the actions, so the judge steps its own environments with them and computes the segment's logits and
values in one stacked forward pass (``replay.replayed``), which is bit for bit the per-step one; it then requires
every action to be the one the student's parameters sample with the grader's uniforms. Its batch is the one the
student trained on.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, Segment
from rlkit.nn import Adam, flatten, mlp_forward, mlp_init
from rlkit.runproof import load, parameters  # noqa: F401  (re-exported: the snapshot layout students' proofs use)


@dataclass
class Recipe:
    """One training run's steps, each a function of the loop's state (student pieces in the child, the reference's
    in the judge)."""

    init: Callable  # rng -> {"actor": layers, "critic": layers}
    optimizer: Callable  # agent -> Adam over the actor's, then the critic's arrays
    lr: Callable  # update index k (from 0) -> step size of update k
    advantages: Callable  # segment -> (advantages, returns), each (T, N)
    batch: Callable  # (segment, advantages, returns) -> the flat batch
    update: Callable  # (agent, optimizer, batch, rng) -> anything; updates the agent in place
    # the judge's only: sets of terms to take on the other side of a discontinuity, from what ``update`` returned
    # (the terms it met there), and ``update(..., flips)`` takes them so (see ``replay.audit``)
    alternatives: Callable = lambda seen: []


def init_agent(rng, hidden: int) -> dict:
    """Project A's given init: orthogonal actor 4 -> hidden -> hidden -> 2 (output gain 0.01), then critic (gain 1)."""
    sizes = [OBS_DIM, hidden, hidden]
    return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01), "critic": mlp_init(sizes + [1], rng, 1.0)}


def adam(agent, lr: float, eps: float) -> Adam:
    """Adam over the actor's parameters, then the critic's: the order of every gradient list."""
    return Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=lr, eps=eps)


def annealed(lr: float, n_updates: int) -> Callable:
    """Step size lr (1 - k / n_updates) for update k = 0, 1, ...: linear decay to 0."""
    return lambda k: lr * (1 - k / n_updates)


def transitions(segment, advantages, returns) -> dict:
    """The batch: every valid transition of the segment, in ``array[segment.valid]`` order."""
    keep = segment.valid
    return {"obs": segment.obs[keep], "actions": segment.actions[keep], "logp": segment.logp[keep],
            "advantages": advantages[keep], "returns": returns[keep], "values": segment.values[:-1][keep]}


def sampled(rollout, agent, n_steps: int, rng) -> Segment:
    """The kit's rollout of update k: ``n_steps`` vector steps, actions sampled from the actor one step at a time."""
    return rollout.collect(lambda obs: mlp_forward(agent["actor"], obs)[0],
                           lambda obs: mlp_forward(agent["critic"], obs)[0][:, 0], n_steps, rng)


def run(envs, seed: int, n_updates: int, n_steps: int, recipe: Recipe, before=None, after=None,
        collect=sampled) -> dict:
    """The kit's PPO loop; ``before(k, agent)`` and ``after(k, agent, segment)`` are called around update k, and
    ``collect(rollout, agent, n_steps, rng)`` makes its segment (the judge's replays the recorded actions)."""
    rng = np.random.default_rng(seed)
    agent = recipe.init(rng)
    optimizer = recipe.optimizer(agent)
    rollout = Rollout(envs, seed)
    for k in range(n_updates):
        if before:
            before(k, agent)
        optimizer.lr = recipe.lr(k)
        segment = collect(rollout, agent, n_steps, rng)
        advantages, returns = recipe.advantages(segment)
        recipe.update(agent, optimizer, recipe.batch(segment, advantages, returns), rng)
        if after:
            after(k, agent, segment)
    return agent


def encode(arrays: list, dtype: str = "<f4") -> str:
    """Arrays as text for the result file: base64 of their bytes as ``dtype`` (snapshots float32 little-endian,
    actions uint8), a quarter of JSON's size or less."""
    return base64.b64encode(np.asarray(arrays, dtype=dtype).tobytes()).decode("ascii")


def decode(text, shape: tuple, dtype: str = "<f4") -> np.ndarray | None:
    """The ``shape`` array of ``dtype`` from ``encode``'s text, or None when the text is not that."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if not isinstance(text, str) or len(text) != 4 * ((size + 2) // 3):
        return None
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except ValueError:
        return None
    return np.frombuffer(raw, dtype=dtype).reshape(shape) if len(raw) == size else None
