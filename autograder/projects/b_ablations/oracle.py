"""The grader's own PPO with the nine switchable details, and its own ablation statistics: what Project B's checks
compare the student's code against. Built on Project A's oracle pieces; float64 throughout."""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.ppo import oracle as ppo
from autograder.projects.b_ablations.catalogue import DETAILS, flipped  # noqa: F401 - the oracle's vocabulary
from rlkit.nn import Adam, flatten, mlp_init, mlp_init_gaussian
from rlkit.cartpole import N_ACTIONS, OBS_DIM

SMALL_ADAM_EPS = 1e-8


def init_agent(rng, hidden: int, d: dict) -> dict:
    sizes = [OBS_DIM, hidden, hidden]
    if d["orthogonal_init"]:
        return {"actor": mlp_init(sizes + [N_ACTIONS], rng, 0.01), "critic": mlp_init(sizes + [1], rng, 1.0)}
    return {"actor": mlp_init_gaussian(sizes + [N_ACTIONS], rng), "critic": mlp_init_gaussian(sizes + [1], rng)}


def adam_eps(c: dict, d: dict) -> float:
    return c["adam_eps"] if d["large_adam_eps"] else SMALL_ADAM_EPS


def learning_rate(update: int, n_updates: int, lr: float, d: dict) -> float:
    return lr * (1 - update / n_updates) if d["anneal_lr"] else lr


def advantages(rewards, values, terminated, truncated, gamma, lam, d: dict):
    ends = terminated if d["bootstrap_truncation"] else terminated | truncated
    adv = ppo.gae(rewards, values, ends, truncated, gamma, lam)
    return adv, adv + values[:-1]


def ppo_update(agent, optimizer, batch, c: dict, d: dict, rng, records: list | None = None) -> None:
    ppo.ppo_update(agent, optimizer, batch, c, rng, {key: d[key] for key in ppo.BASE_DETAILS}, records=records)


statistics = ppo.statistics  # what ppo_update returns, from the ``records`` of its last epoch


def make_optimizer(agent, c: dict, d: dict) -> Adam:
    return Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=c["lr"], eps=adam_eps(c, d))


# ------------------------------------------------------------------------------------ the ablation's statistics


def training_score(per_update) -> float:
    """The course's metric: the mean over updates of each update's mean episode return (updates where no episode
    ended are skipped). It keeps climbing while CartPole's return is capped at 500, so it does not saturate."""
    finished = [r for r in per_update if r is not None and not np.isnan(r)]
    return float(np.mean(finished)) if finished else float("nan")


def summarize(scores: dict) -> dict:
    """Per setting, over its seeds: median, min, max."""
    return {name: {"median": float(np.median(s)), "min": float(np.min(s)), "max": float(np.max(s))}
            for name, s in scores.items()}


def spread(scores: dict, name: str) -> float:
    """The seed spread a factor must beat: the larger of the two settings' max - min."""
    return float(max(np.ptp(scores[name]), np.ptp(scores["baseline"])))


def effect(scores: dict, name: str) -> float:
    """How far flipping ``name`` moves the median of the metric."""
    return float(np.median(scores[name]) - np.median(scores["baseline"]))


def matters(scores: dict, name: str) -> bool:
    return abs(effect(scores, name)) > spread(scores, name)
