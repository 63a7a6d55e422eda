"""Project B: which PPO implementation details matter (D2L §15.7.6 B). Part 1: the switches.

Your Project A module sits beside this file as ``ppo.py`` (copy it in, unchanged). This module trains the same PPO with
nine of its implementation details made switchable. The defaults of ``Details`` are Project A's choices, so
``train(..., details=Details())`` must reproduce ``ppo.train`` bit for bit; flipping one field changes exactly one
detail and nothing else. ``README.md`` beside this file says what each switch does when flipped.
"""

from dataclasses import dataclass

import numpy as np

from ppo import Config, clipped_surrogate, entropy_bonus, explained_variance, flatten_batch, gae, value_loss
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout
from rlkit.categorical import log_softmax
from rlkit.nn import Adam, clip_by_global_norm, flatten, mlp_backward, mlp_forward, mlp_init, mlp_init_gaussian

ENTROPY_COEF = 0.01  # ent_coef when the entropy bonus is switched on
SMALL_ADAM_EPS = 1e-8  # Adam's usual epsilon, used when ``large_adam_eps`` is off


# ---------------------------------------------------------------- given: the switches


@dataclass(frozen=True)
class Details:
    """Nine catalogued PPO details; each default is what Project A's reference does."""

    normalize_advantages: bool = True  # per-minibatch advantage normalization (population std + 1e-8)
    clip_value_loss: bool = False  # PPO2's clipped value loss around the rollout's V_old, half-width clip_eps
    orthogonal_init: bool = True  # orthogonal weights with gains sqrt 2 / 0.01 / 1; off: W ~ N(0, 1/fan_in)
    anneal_lr: bool = True  # step size decays linearly to 0 over the updates; off: constant
    clip_gradients: bool = True  # global gradient norm clipped at max_grad_norm; off: never clipped
    entropy_bonus: bool = False  # on: ent_coef = ENTROPY_COEF instead of config.ent_coef
    large_adam_eps: bool = True  # Adam eps = config.adam_eps (1e-5); off: SMALL_ADAM_EPS
    bootstrap_truncation: bool = True  # a time-limit truncation bootstraps from V(s_final); off: treated as terminal
    multiple_epochs: bool = True  # config.epochs passes over each batch; off: one pass


# ---------------------------------------------------------------- yours: one function per switch


def init_agent(rng: np.random.Generator, config: Config, details: Details) -> dict:
    """Separate actor and critic, 4 -> hidden -> hidden -> 2 and -> 1, initialized as ``details.orthogonal_init`` says
    (actor drawn first, then critic, from ``rng``)."""
    sizes = [OBS_DIM, config.hidden, config.hidden]
    # YOUR CODE HERE
    raise NotImplementedError()


def make_optimizer(agent, config: Config, details: Details) -> Adam:
    """Adam over the actor's then the critic's parameters, step size ``config.lr``, epsilon per the switch."""
    # YOUR CODE HERE
    raise NotImplementedError()


def learning_rate(update: int, n_updates: int, config: Config, details: Details) -> float:
    """The step size of update ``update`` (0-based): lr (1 - update / n_updates) when annealed, else lr."""
    # YOUR CODE HERE
    raise NotImplementedError()


def advantages_and_returns(segment, config: Config, details: Details):
    """GAE on the segment; without ``bootstrap_truncation`` a truncated step counts as terminated (no bootstrap)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def clipped_value_loss(values, values_old, returns, eps):
    """PPO2's value loss and its gradient with respect to ``values``:

    L_V = mean_i max((V_i - R_i)^2, (V_old,i + clip(V_i - V_old,i, -eps, eps) - R_i)^2) / 2.
    Where the clipped branch is the larger one and |V_i - V_old,i| > eps, the term is constant (no gradient).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def ppo_update(agent, optimizer, batch, config: Config, details: Details, rng) -> dict:
    """Project A's ``ppo_update`` with the switches of ``details`` applied: the advantage normalization, the value
    loss (plain or clipped around ``batch["values"]``), the entropy coefficient, the gradient clipping and the number
    of epochs. Same random draws and same returned statistics as Project A's."""
    # YOUR CODE HERE
    raise NotImplementedError()


# ---------------------------------------------------------------- given: the loop, built from your functions


def train(envs, n_updates: int, n_steps: int, seed: int, config: Config = Config(), details: Details = Details(),
          progress=None, on_update=None):
    """Project A's ``train`` with every switchable detail taken from ``details``. Returns (agent, log).
    ``on_update(agent, optimizer, segment)``, if given, is called after each update (the harness records the run's
    proof with it)."""
    rng = np.random.default_rng(seed)
    agent = init_agent(rng, config, details)
    optimizer = make_optimizer(agent, config, details)
    rollout, log = Rollout(envs, seed), []
    for update in range(n_updates):
        optimizer.lr = learning_rate(update, n_updates, config, details)
        segment = rollout.collect(lambda obs: mlp_forward(agent["actor"], obs)[0],
                                  lambda obs: mlp_forward(agent["critic"], obs)[0][:, 0], n_steps, rng)
        advantages, returns = advantages_and_returns(segment, config, details)
        batch = flatten_batch(segment, advantages, returns)
        stats = ppo_update(agent, optimizer, batch, config, details, rng)
        if on_update:
            on_update(agent, optimizer, segment)
        episodes = segment.episode_returns
        entry = {"update": update + 1, "episode_return": float(np.mean(episodes)) if episodes else float("nan"),
                 "explained_variance": explained_variance(batch["values"], batch["returns"]),
                 **{key: float(value) for key, value in stats.items()}}
        log.append(entry)
        if progress:
            progress(entry)
    return agent, log
