"""A numpy DQN on vectorized CartPole: online and target Q-networks, an epsilon-greedy behaviour policy and a
uniform replay buffer. The replay buffer's capacity is the one thing the faulty agent changes.

Every ``steps_per_update`` vector steps count as one logged update: the transitions of the episodes that finished in
it are logged with the online network's Q-values, their discounted Monte Carlo returns and their TD errors against
the target network, all computed at the end of that update.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlkit.cartpole import N_ACTIONS, OBS_DIM, make_envs
from rlkit.nn import Adam, clip_by_global_norm, flatten, mlp_backward, mlp_forward, mlp_init


@dataclass(frozen=True)
class DQNSettings:
    num_envs: int = 4
    steps_per_update: int = 60  # vector steps between two log entries
    gamma: float = 0.99
    lr: float = 1e-3
    hidden: int = 64
    batch: int = 64
    capacity: int = 10_000  # replay buffer size: the faulty agent's is a few dozen
    learn_start: int = 64  # transitions stored before the first gradient step
    target_every: int = 50  # gradient steps between two copies of the online network into the target
    eps_start: float = 1.0
    eps_end: float = 0.05
    eps_fraction: float = 0.4  # share of training over which epsilon decays linearly
    max_grad_norm: float = 10.0


class Replay:
    """A ring buffer of transitions (s, a, r, s', terminated), sampled uniformly with replacement."""

    def __init__(self, capacity: int):
        self.obs, self.next_obs = np.zeros((capacity, OBS_DIM), np.float32), np.zeros((capacity, OBS_DIM), np.float32)
        self.actions, self.rewards = np.zeros(capacity, np.int64), np.zeros(capacity, np.float32)
        self.terminated, self.size, self.at, self.capacity = np.zeros(capacity, np.float32), 0, 0, capacity

    def add(self, obs, actions, rewards, next_obs, terminated):
        for i in range(len(actions)):
            k = self.at
            self.obs[k], self.actions[k], self.rewards[k] = obs[i], actions[i], rewards[i]
            self.next_obs[k], self.terminated[k] = next_obs[i], terminated[i]
            self.at, self.size = (k + 1) % self.capacity, min(self.size + 1, self.capacity)

    def sample(self, n: int, rng):
        i = rng.integers(0, self.size, n)
        return self.obs[i], self.actions[i], self.rewards[i], self.next_obs[i], self.terminated[i]


def td_targets(target, rewards, next_obs, terminated, gamma):
    """r + gamma (1 - terminated) max_a' Q_target(s', a')."""
    return rewards + gamma * (1 - terminated) * mlp_forward(target, next_obs)[0].max(1)


def gradient_step(online, target, optimizer, sample, gamma, max_grad_norm):
    """One step on the mean squared TD error 0.5 (Q(s, a) - y)^2 over a sampled batch."""
    obs, actions, rewards, next_obs, terminated = sample
    y = td_targets(target, rewards, next_obs, terminated, gamma)
    q, cache = mlp_forward(online, obs)
    grad = np.zeros_like(q)
    rows = np.arange(len(actions))
    grad[rows, actions] = (q[rows, actions] - y) / len(actions)
    optimizer.step(clip_by_global_norm(flatten(mlp_backward(online, cache, grad)), max_grad_norm)[0])


def discounted_returns(rewards, gamma):
    """G_t = r_t + gamma G_{t+1} within one episode."""
    out, running = np.zeros(len(rewards)), 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def train_dqn(settings: DQNSettings, n_updates: int, log_samples: np.ndarray, seed: int) -> dict:
    """Train one DQN for ``n_updates`` logged updates; ``log_samples[u]`` transitions of update ``u`` are logged."""
    rng = np.random.default_rng(seed)
    online = mlp_init([OBS_DIM, settings.hidden, settings.hidden, N_ACTIONS], rng, out_gain=1.0)
    target = [[W.copy(), b.copy()] for W, b in online]
    optimizer = Adam(flatten(online), lr=settings.lr)
    replay = Replay(settings.capacity)
    envs = make_envs(settings.num_envs)
    obs, _ = envs.reset(seed=seed)
    resetting = np.zeros(settings.num_envs, bool)
    open_episodes = [[] for _ in range(settings.num_envs)]  # (obs, action, reward, next_obs, terminated) per env
    total = n_updates * settings.steps_per_update
    gradient_steps, step = 0, 0
    log = {key: [] for key in ("obs", "actions", "q_values", "mc_returns", "td_errors", "update")}
    episodes, episode_update = [], []
    for update in range(n_updates):
        finished = []  # transitions of the episodes finished in this update, with their returns
        for _ in range(settings.steps_per_update):
            eps = max(settings.eps_end, settings.eps_start - (settings.eps_start - settings.eps_end) * step
                      / (settings.eps_fraction * total))
            greedy = mlp_forward(online, obs)[0].argmax(1)
            actions = np.where(rng.random(settings.num_envs) < eps, rng.integers(0, N_ACTIONS, settings.num_envs),
                               greedy)
            next_obs, rewards, terminated, truncated, _ = envs.step(actions)
            real = ~resetting  # a reset step (gymnasium's next-step autoreset) is no transition
            replay.add(obs[real], actions[real], rewards[real], next_obs[real], terminated[real])
            for i in np.flatnonzero(real):
                open_episodes[i].append((obs[i], actions[i], rewards[i], next_obs[i], terminated[i]))
                if terminated[i] or truncated[i]:
                    finished.append(open_episodes[i])
                    episodes.append(float(sum(t[2] for t in open_episodes[i])))
                    episode_update.append(update)
                    open_episodes[i] = []
            resetting = terminated | truncated
            obs, step = next_obs, step + 1
            if replay.size >= min(settings.learn_start, settings.capacity):
                gradient_step(online, target, optimizer, replay.sample(settings.batch, rng), settings.gamma,
                              settings.max_grad_norm)
                gradient_steps += 1
                if gradient_steps % settings.target_every == 0:
                    target = [[W.copy(), b.copy()] for W, b in online]
        _log_update(log, finished, update, int(log_samples[update]), online, target, settings.gamma, rng)
    envs.close()
    out = {key: np.concatenate(parts) if parts else np.zeros(0) for key, parts in log.items()}
    out["episode_returns"], out["episode_update"] = np.array(episodes, float), np.array(episode_update, np.int64)
    return out


def _log_update(log, finished, update, n_samples, online, target, gamma, rng):
    if not finished:
        return
    obs = np.array([t[0] for ep in finished for t in ep], np.float32)
    actions = np.array([t[1] for ep in finished for t in ep], np.int64)
    rewards = np.array([t[2] for ep in finished for t in ep], np.float32)
    next_obs = np.array([t[3] for ep in finished for t in ep], np.float32)
    terminated = np.array([t[4] for ep in finished for t in ep], np.float32)
    mc = np.concatenate([discounted_returns([t[2] for t in ep], gamma) for ep in finished])
    pick = rng.choice(len(actions), size=min(n_samples, len(actions)), replace=False)
    q = mlp_forward(online, obs[pick])[0].astype(float)
    y = td_targets(target, rewards[pick], next_obs[pick], terminated[pick], gamma).astype(float)
    log["obs"].append(obs[pick])
    log["actions"].append(actions[pick])
    log["q_values"].append(q)
    log["mc_returns"].append(mc[pick])
    log["td_errors"].append(y - q[np.arange(len(pick)), actions[pick]])
    log["update"].append(np.full(len(pick), update))
