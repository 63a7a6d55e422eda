"""Project A: PPO from its pieces, on CartPole-v1 (D2L §15.2, §15.7.6 A).

Given below: the hyperparameters, the agent (separate actor and critic MLPs from ``rlkit.nn``) and its two heads.
From ``rlkit``: the vectorized rollout (``rlkit.cartpole.Rollout``), Adam, gradient clipping, categorical helpers.
Yours: every piece between a rollout and the next one. ``README.md`` beside this file gives each piece's contract;
``capstone-check A`` tells you how far you are.

Conventions: arrays from a rollout are (T, N) = (steps, envs); ``values`` has T + 1 rows, the last one the bootstrap
value after the segment. Gradients are of the quantity named (an objective to ascend, a loss to descend), per logit or
per value, already divided by the batch size.
"""

from dataclasses import dataclass

import numpy as np

from rlkit.categorical import log_softmax
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout
from rlkit.nn import Adam, clip_by_global_norm, flatten, mlp_backward, mlp_forward, mlp_init


# ---------------------------------------------------------------- given: hyperparameters and the agent


@dataclass(frozen=True)
class Config:
    gamma: float = 0.99  # discount
    lam: float = 0.95  # GAE lambda
    clip_eps: float = 0.2  # clip half-width epsilon
    epochs: int = 6  # passes over each batch
    minibatches: int = 8  # per epoch
    lr: float = 2.5e-3  # Adam step size, annealed linearly to 0 over training
    adam_eps: float = 1e-5
    max_grad_norm: float = 0.5  # global-norm clipping of each minibatch's gradient
    vf_coef: float = 0.5  # weight of the value loss
    ent_coef: float = 0.0  # weight of the entropy bonus
    hidden: int = 32  # units in each of the two hidden layers of both networks


def init_agent(rng: np.random.Generator, config: Config = Config()) -> dict:
    """Separate actor and critic MLPs, orthogonally initialized (output gains 0.01 and 1, as in CleanRL)."""
    sizes = [OBS_DIM, config.hidden, config.hidden]
    return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01),
            "critic": mlp_init(sizes + [1], rng, out_gain=1.0)}


def policy_logits(agent, obs):
    return mlp_forward(agent["actor"], obs)[0]


def state_value(agent, obs):
    return mlp_forward(agent["critic"], obs)[0][:, 0]


# ---------------------------------------------------------------- yours: the pieces


def gae(rewards, values, terminated, truncated, gamma, lam):
    """Generalized advantage estimates and returns for a (T, N) segment (Schulman et al., 2016).

    delta_t = r_t + gamma (1 - terminated_t) V_{t+1} - V_t
    A_t = delta_t + gamma lam (1 - done_t) A_{t+1},   done = terminated or truncated,   A_T = 0
    returns = A + V_{0..T-1}
    A terminated episode bootstraps from nothing; a truncated one, and the segment's end, from V_{t+1}.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def flatten_batch(segment, advantages, returns) -> dict:
    """The transitions of a segment as flat arrays, reset steps dropped, in ``array[segment.valid]`` order.

    Keys: obs (B, 4), actions, logp, advantages, returns, values (V_t of each transition).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def importance_ratio(logp_new, logp_old):
    """rho = pi_theta(a|s) / pi_theta_old(a|s), from log-probabilities."""
    # YOUR CODE HERE
    raise NotImplementedError()


def clipped_surrogate(logits, actions, logp_old, advantages, eps):
    """The clipped objective (Eq. 15.2.10) and its gradient with respect to ``logits`` (B, 2):

    L = mean_i min(rho_i A_i, clip(rho_i, 1 - eps, 1 + eps) A_i),   rho_i = importance_ratio(log pi(a_i|s_i), old).
    A term whose clipped branch wins is constant (no gradient): A_i > 0 with rho_i > 1 + eps, or A_i < 0 with
    rho_i < 1 - eps. Otherwise d rho_i / d logits_i = rho_i (onehot(a_i) - pi(.|s_i)).
    Returns (L, dL/dlogits).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def value_loss(values, returns):
    """L_V = mean_i (V(s_i) - R_i)^2 / 2 and its gradient with respect to ``values``."""
    # YOUR CODE HERE
    raise NotImplementedError()


def entropy_bonus(logits):
    """Mean policy entropy H = mean_i H(pi(.|s_i)) and its gradient with respect to ``logits``:

    dH_i / dz_k = -pi_k (log pi_k + H_i).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def ppo_update(agent, optimizer, batch, config: Config, rng) -> dict:
    """``config.epochs`` passes over ``batch``, each over ``config.minibatches`` minibatches of a fresh
    ``rng.permutation``; per minibatch: normalize its advantages (population std + 1e-8), descend
    -L_clip + vf_coef L_V - ent_coef H through both networks, clip the global gradient norm, take one Adam step.

    Minibatch k of an epoch is ``perm[k * size:(k + 1) * size]`` with ``size = B // minibatches``.
    Returns the last epoch's mean approximate KL (mean of (rho - 1) - log rho), clip fraction, entropy and value loss.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def explained_variance(predicted, target) -> float:
    """1 - Var(target - predicted) / Var(target): 1 for a perfect critic, 0 for a constant one."""
    # YOUR CODE HERE
    raise NotImplementedError()


def train(envs, n_updates: int, n_steps: int, seed: int, config: Config = Config(), progress=None):
    """PPO on the vector env ``envs`` for ``n_updates`` updates of ``n_steps`` steps per env. Given, whole: A.bar runs
    the kit's copy of this loop with your pieces and replays every update (README, "How the bar is run").

    Returns the agent (its layers, as data) and a log with one dict per update. ``progress``, if given, is called
    with each update's log entry (the notebook passes a progress bar).
    """
    rng = np.random.default_rng(seed)
    agent = init_agent(rng, config)
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=config.lr, eps=config.adam_eps)
    rollout, log = Rollout(envs, seed), []
    for update in range(n_updates):
        optimizer.lr = config.lr * (1 - update / n_updates)
        segment = rollout.collect(lambda obs: policy_logits(agent, obs), lambda obs: state_value(agent, obs),
                                  n_steps, rng)
        advantages, returns = gae(segment.rewards, segment.values, segment.terminated, segment.truncated,
                                  config.gamma, config.lam)
        batch = flatten_batch(segment, advantages, returns)
        stats = ppo_update(agent, optimizer, batch, config, rng)
        episodes = segment.episode_returns
        entry = {"update": update + 1, "episode_return": float(np.mean(episodes)) if episodes else float("nan"),
                 "explained_variance": explained_variance(batch["values"], batch["returns"]),
                 **{key: float(value) for key, value in stats.items()}}
        log.append(entry)
        if progress:
            progress(entry)
    return agent, log
