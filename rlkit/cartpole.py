"""CartPole-v1, vectorized: gymnasium's numpy CartPoleVectorEnv, a rollout that keeps only real transitions, and an
evaluation helper.

gymnasium >= 1.0 vector envs reset a finished episode on the NEXT call to ``step``: that call ignores its action,
returns reward 0 and the new episode's first observation. Such a *reset step* is not a transition of the MDP, so the
rollout marks it ``valid = False`` and it must never enter a PPO batch. The step that ended the episode returns the
episode's final observation, so the value the rollout computes on the following step is exactly V(s_final): GAE
bootstraps from it at a truncation with no extra bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rlkit.categorical import log_prob, sample
from rlkit.nn import mlp_forward

OBS_DIM, N_ACTIONS = 4, 2


def make_envs(num_envs: int):
    """``num_envs`` CartPole-v1 copies stepped together in numpy (500-step time limit, next-step autoreset)."""
    return gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")


@dataclass
class Segment:
    """``n_steps`` vector steps of ``num_envs`` envs, arrays shaped (T, N) unless noted.

    ``values`` has T + 1 rows: row t is V(s_t), the last row the bootstrap value after the segment.
    ``valid[t, i]`` is False for reset steps (see the module's docstring).
    ``episode_returns`` lists the returns of the episodes that ended during the segment.
    """

    obs: np.ndarray  # (T, N, 4)
    actions: np.ndarray
    logp: np.ndarray
    values: np.ndarray  # (T + 1, N)
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray
    episode_returns: list = field(default_factory=list)


class Rollout:
    """Collects segments from ``envs`` one after another, carrying the observation and open episodes across them."""

    def __init__(self, envs, seed: int):
        self.envs, self.n = envs, envs.num_envs
        self.obs, _ = envs.reset(seed=seed)
        self.resetting = np.zeros(self.n, dtype=bool)  # the next step of these envs is a reset step
        self.running_return = np.zeros(self.n)

    def collect(self, policy_logits, state_value, n_steps: int, rng: np.random.Generator) -> Segment:
        """Run ``n_steps`` vector steps with actions sampled from ``policy_logits(obs)``; ``state_value(obs)`` ->
        (N,)."""
        T, N = n_steps, self.n
        seg = Segment(np.zeros((T, N, OBS_DIM), np.float32), np.zeros((T, N), np.int64), np.zeros((T, N)),
                      np.zeros((T + 1, N)), np.zeros((T, N)), np.zeros((T, N), bool), np.zeros((T, N), bool),
                      np.zeros((T, N), bool))
        for t in range(T):
            logits = policy_logits(self.obs)
            actions = sample(logits, rng)
            seg.obs[t], seg.actions[t], seg.logp[t] = self.obs, actions, log_prob(logits, actions)
            seg.values[t], seg.valid[t] = state_value(self.obs), ~self.resetting
            self.obs, reward, terminated, truncated, _ = self.envs.step(actions)
            seg.rewards[t], seg.terminated[t], seg.truncated[t] = reward, terminated, truncated
            self.running_return += reward
            done = terminated | truncated
            seg.episode_returns += self.running_return[done].tolist()
            self.running_return[done] = 0.0
            self.resetting = done
        seg.values[T] = state_value(self.obs)
        return seg

    def advance(self, actions: np.ndarray) -> np.ndarray:
        """Step the environments with recorded (T, N) ``actions`` as ``collect`` would have, computing nothing else
        (a replay's way past updates it does not make); returns which steps were valid, (T, N)."""
        valid = np.zeros(actions.shape, bool)
        for t, step_actions in enumerate(np.asarray(actions, np.int64)):
            valid[t] = ~self.resetting
            self.obs, reward, terminated, truncated, _ = self.envs.step(step_actions)
            self.running_return += reward
            done = terminated | truncated
            self.running_return[done] = 0.0
            self.resetting = done
        return valid


def evaluate(actor, episodes: int, seed: int) -> np.ndarray:
    """Returns of ``episodes`` full episodes with actions sampled from the policy whose layers are ``actor``."""
    envs = make_envs(episodes)
    obs, _ = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns, running = np.zeros(episodes), np.ones(episodes, dtype=bool)
    while running.any():
        obs, reward, terminated, truncated, _ = envs.step(sample(mlp_forward(actor, obs)[0], rng))
        returns += reward * running
        running &= ~(terminated | truncated)
    envs.close()
    return returns
