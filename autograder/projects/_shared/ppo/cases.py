"""PPO cases made from a seed, the same in the child (which builds them) and the judge (which builds them again):
GAE segments, the batch a segment flattens to, and a batch with an agent to update."""

from __future__ import annotations

import numpy as np

from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, make_envs
from rlkit.nn import mlp_forward, mlp_init


def gae_cases(seed: int):
    """(T, N, gamma, lam, rewards, values, terminated, truncated): on every seed, each case ends episodes both ways
    inside the segment (column 0 truncates, column 1 terminates, at a step with steps before and after it when T > 2),
    besides random ends and the segment's own end, so truncation handled as termination, or a done mask one step off,
    changes the advantages of every case."""
    rng = np.random.default_rng(seed)
    for T, N, gamma, lam in [(1, 2, 0.99, 1.0), (12, 3, 0.99, 1.0), (30, 2, 0.9, 1.0), (12, 3, 0.99, 0.0),
                             (25, 4, 0.99, 0.95), (16, 2, 0.9, 0.5)]:
        terminated = rng.random((T, N)) < 0.12
        truncated = (rng.random((T, N)) < 0.08) & ~terminated
        inside = (lambda: int(rng.integers(1, T - 1))) if T > 2 else (lambda: 0)
        t = inside()
        terminated[t, 0], truncated[t, 0] = False, True
        t = inside()
        terminated[t, 1], truncated[t, 1] = True, False
        yield (T, N, gamma, lam, rng.normal(1, 1, (T, N)), rng.normal(0, 3, (T + 1, N)), terminated, truncated)


BATCH_KEYS = ["obs", "actions", "logp", "advantages", "returns", "values"]


def expected_batch(segment, adv, ret) -> dict:
    keep = segment.valid
    return {"obs": segment.obs[keep], "actions": segment.actions[keep], "logp": segment.logp[keep],
            "advantages": adv[keep], "returns": ret[keep], "values": segment.values[:-1][keep]}


def update_case(seed: int, return_scale: float = 1.0):
    """(agent, batch) in float64: a rollout of a fresh agent, with random advantages and returns V + return_scale A
    (collect builds this in the child, where the oracle is not available)."""
    rng = np.random.default_rng(seed)
    agent = {"actor": mlp_init([OBS_DIM, 16, 16, N_ACTIONS], rng, 0.01, dtype=np.float64),
             "critic": mlp_init([OBS_DIM, 16, 16, 1], rng, 1.0, dtype=np.float64)}
    segment = Rollout(make_envs(8), seed).collect(lambda o: mlp_forward(agent["actor"], o.astype(float))[0],
                                                  lambda o: mlp_forward(agent["critic"], o.astype(float))[0][:, 0],
                                                  32, rng)
    adv = rng.normal(0, 1, segment.rewards.shape)
    batch = expected_batch(segment, adv, return_scale * adv + segment.values[:-1])
    batch["obs"] = batch["obs"].astype(float)
    return agent, batch


FLAT_SPREAD = 1e-8  # the normalization's epsilon: a minibatch this flat shows whether std + 1e-8 is what divides


def with_a_flat_minibatch(batch: dict, seed: int, minibatches: int) -> dict:
    """``batch`` with the first minibatch an update draws (the first ``rng.permutation`` of ``default_rng(seed)``,
    the rng the checks hand ``ppo_update``) given advantages whose standard deviation is ``FLAT_SPREAD`` around 0.
    Normalized as the README says, they become z / 2; an epsilon dropped, negated or changed gives NaN, inf, z or
    z / 3, so the update departs. Only the advantages change."""
    n = len(batch["actions"])
    first = np.random.default_rng(seed).permutation(n)[:n // minibatches]
    z = np.random.default_rng([seed, 31]).standard_normal(len(first))
    advantages = batch["advantages"].copy()
    advantages[first] = FLAT_SPREAD * (z - z.mean()) / z.std()
    return {**batch, "advantages": advantages}
