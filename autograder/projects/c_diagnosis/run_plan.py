"""Which runs exist, how each is made from a seed, and how a log travels: the run plan of Project C.

A log is a flat mapping of arrays saved as ``.npz``. Every log holds ``gamma``, ``episode_returns`` and
``episode_update`` (the update each episode finished in), and per logged transition ``obs`` and ``update``.
A PPO log adds ``logits`` (before the update), ``actions``, ``logp_old``, ``logp_new`` (after the update),
``values`` and ``returns`` (the lambda-returns the critic was regressed on) and the scalar ``clip_eps``; a DQN log adds
``actions``, ``q_values`` (every action), ``mc_returns`` and ``td_errors``. Nothing names the agent, its fault or a
hyperparameter that differs between agents; the number of updates and of logged transitions per update are drawn at
random for every run, the same way for every agent.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import NamedTuple

import numpy as np

from autograder.projects.c_diagnosis.dqn import DQNSettings, train_dqn
from autograder.projects.c_diagnosis.ppo_agents import PPOSettings, train_ppo

LABELS = ("saturated_policy", "untrained_critic", "small_replay_buffer", "healthy")
FAULTS = LABELS[:3]
UPDATES = (26, 32)  # inclusive range of logged updates per run
SAMPLES = (160, 256)  # inclusive range of logged transitions per update

# (label, severity) -> the agent. Severity 1 is the milder fault; the two healthy agents are severity 1 and 2.
AGENTS = {
    ("saturated_policy", 1): PPOSettings(actor_gain=200.0),
    ("saturated_policy", 2): PPOSettings(actor_gain=2000.0),
    ("untrained_critic", 1): PPOSettings(critic_step=0.01),
    ("untrained_critic", 2): PPOSettings(critic_step=0.0),
    ("small_replay_buffer", 1): DQNSettings(capacity=32),
    ("small_replay_buffer", 2): DQNSettings(capacity=16),
    ("healthy", 1): PPOSettings(),
    ("healthy", 2): DQNSettings(),
}


class Run(NamedTuple):
    label: str
    severity: int
    seed: int


def fresh_plan(seed: int, secret: str | None = None) -> list[Run]:
    """Every agent once, in an order shuffled by ``seed`` and the course secret, each with its own training seed.

    The secret keeps the order out of reach of code that knows the seed (the sandboxed child is told it) and can import
    this function; without a secret (the bundled placeholder) it is only as private as the seed.
    """
    rng = np.random.default_rng([seed, 15_076, *secret_words(secret)])
    runs = [Run(label, severity, int(rng.integers(2**31))) for label, severity in AGENTS]
    return [runs[i] for i in rng.permutation(len(runs))]


def secret_words(secret: str | None) -> list[int]:
    """The secret as numbers for a seed sequence (none without a secret)."""
    return list(hashlib.sha256(secret.encode()).digest()[:16]) if secret else []


def generate(run: Run) -> dict:
    """Train the run's agent and return its log (plain arrays)."""
    rng = np.random.default_rng([run.seed, 1])
    n_updates = int(rng.integers(UPDATES[0], UPDATES[1] + 1))
    samples = rng.integers(SAMPLES[0], SAMPLES[1] + 1, n_updates)
    settings = AGENTS[(run.label, run.severity)]
    if isinstance(settings, PPOSettings):
        log = train_ppo(settings, n_updates, samples, run.seed)
        log["clip_eps"] = np.array(settings.update["clip_eps"])
    else:
        log = train_dqn(settings, n_updates, samples, run.seed)
    log["gamma"] = np.array(settings.gamma)
    return log


def load(path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


# ------------------------------------------------------------------ the students' own three logs

NAMES = ("agent_a", "agent_b", "agent_c")


def student_key(student: str | None, secret: str | None, example_seed: int) -> int:
    """The number that decides a student's set: HMAC-SHA256(secret, student id), or ``example_seed`` for the
    bundled example set (no student)."""
    if student is None:
        return example_seed
    digest = hmac.new((secret or "").encode(), student.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def student_set(key: int) -> dict[str, Run]:
    """name -> the run behind it: the three faults, shuffled over the names, each at a severity drawn from the key."""
    rng = np.random.default_rng([key, 3])
    order = rng.permutation(len(FAULTS))
    return {name: Run(FAULTS[k], int(rng.integers(1, 3)), int(rng.integers(2**31))) for name, k in zip(NAMES, order)}
