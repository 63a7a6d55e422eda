"""The PPO agents of Project C: a healthy one and two faulty ones, trained with the grader's own PPO update.

Each run returns its training log as plain arrays (the format is in ``run_plan.py``). The faults are made here and
nowhere else:

- **saturated policy**: the actor's output layer starts with a huge gain instead of 0.01, so from the first update the
  logits are large, the policy almost deterministic and its gradient (one-hot minus pi) almost nil;
- **untrained critic**: the critic's step size is 0 or a hundredth of the actor's, so its predictions stay
  (nearly) those of its random initialization while the policy keeps learning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from autograder.projects._shared.ppo import oracle
from rlkit.categorical import log_prob
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, make_envs
from rlkit.nn import Adam, flatten, mlp_forward, mlp_init


@dataclass(frozen=True)
class PPOSettings:
    """Shared by every PPO run; ``actor_gain`` and ``critic_step`` are what the faults change."""

    num_envs: int = 16
    n_steps: int = 64
    gamma: float = 0.99
    lam: float = 0.95
    lr: float = 2.5e-3
    hidden: int = 32
    actor_gain: float = 0.01
    critic_step: float = 1.0
    update: dict = field(default_factory=lambda: {"epochs": 8, "minibatches": 4, "clip_eps": 0.2, "ent_coef": 0.0,
                                                  "vf_coef": 0.5, "max_grad_norm": 0.5})


class SlowCritic:
    """One Adam for the actor and one for the critic, the critic's step size ``factor`` times the actor's (0: frozen).
    (Scaling the critic's gradients instead would do nothing: Adam's step does not depend on the gradient's scale.)"""

    def __init__(self, actor: Adam, critic: Adam, n_actor: int):
        self.actor, self.critic, self.n_actor = actor, critic, n_actor

    def step(self, grads):
        self.actor.step(grads[:self.n_actor])
        if self.critic.lr > 0:
            self.critic.step(grads[self.n_actor:])


def train_ppo(settings: PPOSettings, n_updates: int, log_samples: np.ndarray, seed: int) -> dict:
    """Train one PPO agent for ``n_updates``; ``log_samples[u]`` transitions of update ``u`` are logged, at random."""
    rng = np.random.default_rng(seed)
    sizes = [OBS_DIM, settings.hidden, settings.hidden]
    agent = {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=settings.actor_gain),
             "critic": mlp_init(sizes + [1], rng, out_gain=1.0)}
    actor_params, critic_params = flatten(agent["actor"]), flatten(agent["critic"])
    if settings.critic_step == 1.0:
        optimizer = Adam(actor_params + critic_params, lr=settings.lr)
    else:
        optimizer = SlowCritic(Adam(actor_params, lr=settings.lr),
                               Adam(critic_params, lr=settings.lr * settings.critic_step), len(actor_params))
    envs = make_envs(settings.num_envs)
    rollout = Rollout(envs, seed)
    log = {key: [] for key in ("obs", "logits", "actions", "logp_old", "logp_new", "values", "returns", "update")}
    episodes, episode_update = [], []
    for update in range(n_updates):
        segment = rollout.collect(lambda o: mlp_forward(agent["actor"], o)[0],
                                  lambda o: mlp_forward(agent["critic"], o)[0][:, 0], settings.n_steps, rng)
        advantages = oracle.gae(segment.rewards, segment.values, segment.terminated, segment.truncated,
                                settings.gamma, settings.lam)
        keep = segment.valid
        batch = {"obs": segment.obs[keep], "actions": segment.actions[keep], "logp": segment.logp[keep],
                 "advantages": advantages[keep], "returns": (advantages + segment.values[:-1])[keep],
                 "values": segment.values[:-1][keep]}
        pick = rng.choice(len(batch["actions"]), size=min(int(log_samples[update]), len(batch["actions"])),
                          replace=False)
        obs, actions = batch["obs"][pick], batch["actions"][pick]
        log["logits"].append(mlp_forward(agent["actor"], obs)[0].astype(float))
        oracle.ppo_update(agent, optimizer, batch, settings.update, rng)
        log["logp_new"].append(log_prob(mlp_forward(agent["actor"], obs)[0].astype(float), actions))
        log["obs"].append(obs)
        log["actions"].append(actions)
        log["logp_old"].append(batch["logp"][pick])
        log["values"].append(batch["values"][pick])
        log["returns"].append(batch["returns"][pick])
        log["update"].append(np.full(len(pick), update))
        episodes += segment.episode_returns
        episode_update += [update] * len(segment.episode_returns)
    envs.close()
    out = {key: np.concatenate(parts) for key, parts in log.items()}
    out["episode_returns"], out["episode_update"] = np.array(episodes, float), np.array(episode_update, np.int64)
    return out
