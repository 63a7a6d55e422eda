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
    ### BEGIN SOLUTION
    if details.orthogonal_init:
        return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01),
                "critic": mlp_init(sizes + [1], rng, out_gain=1.0)}
    return {"actor": mlp_init_gaussian(sizes + [N_ACTIONS], rng), "critic": mlp_init_gaussian(sizes + [1], rng)}
    ### END SOLUTION


def make_optimizer(agent, config: Config, details: Details) -> Adam:
    """Adam over the actor's then the critic's parameters, step size ``config.lr``, epsilon per the switch."""
    ### BEGIN SOLUTION
    eps = config.adam_eps if details.large_adam_eps else SMALL_ADAM_EPS
    return Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=config.lr, eps=eps)
    ### END SOLUTION


def learning_rate(update: int, n_updates: int, config: Config, details: Details) -> float:
    """The step size of update ``update`` (0-based): lr (1 - update / n_updates) when annealed, else lr."""
    ### BEGIN SOLUTION
    return config.lr * (1 - update / n_updates) if details.anneal_lr else config.lr
    ### END SOLUTION


def advantages_and_returns(segment, config: Config, details: Details):
    """GAE on the segment; without ``bootstrap_truncation`` a truncated step counts as terminated (no bootstrap)."""
    ### BEGIN SOLUTION
    terminated = segment.terminated if details.bootstrap_truncation else segment.terminated | segment.truncated
    return gae(segment.rewards, segment.values, terminated, segment.truncated, config.gamma, config.lam)
    ### END SOLUTION


def clipped_value_loss(values, values_old, returns, eps):
    """PPO2's value loss and its gradient with respect to ``values``:

    L_V = mean_i max((V_i - R_i)^2, (V_old,i + clip(V_i - V_old,i, -eps, eps) - R_i)^2) / 2.
    Where the clipped branch is the larger one and |V_i - V_old,i| > eps, the term is constant (no gradient).
    """
    ### BEGIN SOLUTION
    clipped = values_old + np.clip(values - values_old, -eps, eps)
    plain_sq, clipped_sq = (values - returns) ** 2, (clipped - returns) ** 2
    use_clipped = clipped_sq > plain_sq
    grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), values - returns)
    return 0.5 * np.maximum(plain_sq, clipped_sq).mean(), grad / len(values)
    ### END SOLUTION


def ppo_update(agent, optimizer, batch, config: Config, details: Details, rng) -> dict:
    """Project A's ``ppo_update`` with the switches of ``details`` applied: the advantage normalization, the value
    loss (plain or clipped around ``batch["values"]``), the entropy coefficient, the gradient clipping and the number
    of epochs. Same random draws and same returned statistics as Project A's."""
    ### BEGIN SOLUTION
    B = len(batch["actions"])
    size = B // config.minibatches
    epochs = config.epochs if details.multiple_epochs else 1
    ent_coef = ENTROPY_COEF if details.entropy_bonus else config.ent_coef
    for epoch in range(epochs):
        perm, stats = rng.permutation(B), []
        for k in range(config.minibatches):
            idx = perm[k * size:(k + 1) * size]
            adv = batch["advantages"][idx]
            if details.normalize_advantages:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            logits, actor_cache = mlp_forward(agent["actor"], batch["obs"][idx])
            values, critic_cache = mlp_forward(agent["critic"], batch["obs"][idx])
            surrogate, d_surrogate = clipped_surrogate(logits, batch["actions"][idx], batch["logp"][idx], adv,
                                                       config.clip_eps)
            if details.clip_value_loss:
                v_loss, d_values = clipped_value_loss(values[:, 0], batch["values"][idx], batch["returns"][idx],
                                                      config.clip_eps)
            else:
                v_loss, d_values = value_loss(values[:, 0], batch["returns"][idx])
            H, d_entropy = entropy_bonus(logits)
            grads = flatten(mlp_backward(agent["actor"], actor_cache, -d_surrogate - ent_coef * d_entropy))
            grads += flatten(mlp_backward(agent["critic"], critic_cache, config.vf_coef * d_values[:, None]))
            if details.clip_gradients:
                grads = clip_by_global_norm(grads, config.max_grad_norm)[0]
            optimizer.step(grads)
            if epoch < epochs - 1:
                continue
            log_rho = log_softmax(logits)[np.arange(len(idx)), batch["actions"][idx]] - batch["logp"][idx]
            stats.append((np.mean(np.expm1(log_rho) - log_rho), np.mean(np.abs(np.expm1(log_rho)) > config.clip_eps),
                          H, v_loss))
    kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)
    return {"approx_kl": kl, "clip_fraction": clip_fraction, "entropy": H, "value_loss": v_loss}
    ### END SOLUTION


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
