"""The grader's own PPO arithmetic, written from the equations, independent of any submission: Project A's pieces,
the update with Project B's switches, and what Project C's agents train with."""

from functools import partial
from typing import NamedTuple

import numpy as np

from rlkit.categorical import log_softmax
from rlkit.nn import clip_by_global_norm, flatten, mlp_backward, mlp_forward


def reward_to_go_minus_value(rewards, values, terminated, truncated, gamma):
    """lambda = 1 by its definition: discounted rewards to the episode's end (bootstrapped from V_{t+1} at a
    truncation and at the segment's end, nothing after a termination) minus V_t. One env column at a time."""
    T, N = rewards.shape
    out = np.zeros((T, N))
    for i in range(N):
        for t in range(T):
            total, discount = 0.0, 1.0
            for k in range(t, T):
                total += discount * rewards[k, i]
                if terminated[k, i]:
                    break
                if truncated[k, i] or k == T - 1:
                    total += discount * gamma * values[k + 1, i]
                    break
                discount *= gamma
            out[t, i] = total - values[t, i]
    return out


def td_error(rewards, values, terminated, gamma):
    return rewards + gamma * (1 - terminated) * values[1:] - values[:-1]


def gae(rewards, values, terminated, truncated, gamma, lam):
    """The recursion, written over whole rows."""
    delta = td_error(rewards, values, terminated, gamma)
    carry = gamma * lam * (1 - (terminated | truncated))
    advantages = np.zeros_like(delta)
    for t in reversed(range(len(delta))):
        advantages[t] = delta[t] + (carry[t] * advantages[t + 1] if t + 1 < len(delta) else 0)
    return advantages


def log_policy_and_ratio(logits, actions, logp_old, dtype=float):
    """(log pi(.|s_i) per row, in ``dtype``, and rho_i = pi(a_i|s_i) / pi_old(a_i|s_i) as exp of the log difference).
    The grader takes log pi in float64; B.bar's runs take it in the logits' float32, as the reference solution does
    (``b_ablations.bar_runs``)."""
    logp = log_softmax(logits.astype(dtype))
    return logp, np.exp(logp[np.arange(len(actions)), actions] - logp_old)


def onehot_minus_policy(logp, actions):
    """onehot(a_i) - pi(.|s_i) per row, in float64: d log pi(a_i|s_i) / d logits_i (1 - p at the action is 1 + (-p),
    exactly)."""
    out = -np.exp(logp).astype(float, copy=False)
    out[np.arange(len(actions)), actions] += 1.0
    return out


def clipped_surrogate(logits, actions, logp_old, advantages, eps, parts=None, dtype=float):
    """The clipped objective and its gradient with respect to the logits; ``parts`` are ``log_policy_and_ratio``'s,
    when the caller has them already."""
    logp, rho = parts or log_policy_and_ratio(logits, actions, logp_old, dtype)
    objective = np.mean(np.minimum(rho * advantages, np.clip(rho, 1 - eps, 1 + eps) * advantages))
    live = ~(((advantages > 0) & (rho > 1 + eps)) | ((advantages < 0) & (rho < 1 - eps)))
    return objective, (live * rho * advantages)[:, None] * onehot_minus_policy(logp, actions) / len(actions)


def plain_policy_gradient(logits, actions, advantages):
    """d/dlogits mean_i A_i log pi(a_i|s_i): what the clipped objective's gradient is at theta = theta_old."""
    return advantages[:, None] * onehot_minus_policy(log_softmax(logits.astype(float)), actions) / len(actions)


def value_loss(values, returns):
    return 0.5 * np.mean((values - returns) ** 2), (values - returns) / len(values)


def entropy_bonus(logits, dtype=float):
    logp = log_softmax(logits.astype(dtype))
    H = -(np.exp(logp) * logp).sum(1)
    return H.mean(), -np.exp(logp) * (logp + H[:, None]) / len(logits)


def clipped_value_loss(values, values_old, returns, eps):
    """Project B's switch: the larger of the plain and the clipped squared error, halved and averaged, with the
    gradient of whichever is larger (none where the clipped one is larger and already clipped)."""
    clipped = values_old + np.clip(values - values_old, -eps, eps)
    plain, other = (values - returns) ** 2, (clipped - returns) ** 2
    grad = np.where(other > plain, (clipped - returns) * (np.abs(values - values_old) < eps), values - returns)
    return 0.5 * np.maximum(plain, other).mean(), grad / len(values)


# The update's details as Project A makes them; Project B switches each away in turn.
BASE_DETAILS = {"normalize_advantages": True, "clip_value_loss": False, "clip_gradients": True, "entropy_bonus": False,
             "multiple_epochs": True}
ENTROPY_COEF = 0.01  # Project B's ent_coef when the entropy bonus is switched on


def ppo_update(agent, optimizer, batch, c, rng, details=None, surrogate=None, dtype=float, records=None):
    """The minibatch-epoch update, in the README's order of random draws; updates ``agent`` in place.

    ``details`` (Project B) may switch the update's details away from Project A's choices, ``BASE_DETAILS``;
    ``surrogate`` replaces ``clipped_surrogate`` (the replay's, which settles ratios on the clip's edge); ``dtype`` is
    the log-softmax's (``log_policy_and_ratio``). ``records``, a list when given, receives one ``MinibatchRecord``
    per minibatch of the last epoch, from its forward pass before its step: what the update's statistics are made of
    (``statistics``)."""
    d = {**BASE_DETAILS, **(details or {})}
    B = len(batch["actions"])
    size = B // c["minibatches"]
    ent_coef = ENTROPY_COEF if d["entropy_bonus"] else c["ent_coef"]
    epochs = c["epochs"] if d["multiple_epochs"] else 1
    for epoch in range(epochs):
        perm = rng.permutation(B)
        for k in range(c["minibatches"]):
            i = perm[k * size:(k + 1) * size]
            adv = batch["advantages"][i]
            if d["normalize_advantages"]:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            logits, a_cache = mlp_forward(agent["actor"], batch["obs"][i])
            values, c_cache = mlp_forward(agent["critic"], batch["obs"][i])
            d_logits = -(surrogate or partial(clipped_surrogate, dtype=dtype))(
                logits, batch["actions"][i], batch["logp"][i], adv, c["clip_eps"])[1]
            if ent_coef:  # skipped at 0: the same d_logits, and a replay of every update costs less
                d_logits -= ent_coef * entropy_bonus(logits, dtype)[1]
            if d["clip_value_loss"]:
                v = clipped_value_loss(values[:, 0].astype(float), batch["values"][i], batch["returns"][i],
                                       c.get("value_clip_eps", c["clip_eps"]))  # apart only in a known mistake
            else:
                v = value_loss(values[:, 0].astype(float), batch["returns"][i])
            if records is not None and epoch == epochs - 1:
                records.append(minibatch_record(logits, batch["actions"][i], batch["logp"][i], v[0]))
            grads = flatten(mlp_backward(agent["actor"], a_cache, d_logits))
            grads += flatten(mlp_backward(agent["critic"], c_cache, c["vf_coef"] * v[1][:, None]))
            optimizer.step(clip_by_global_norm(grads, c["max_grad_norm"])[0] if d["clip_gradients"] else grads)


# ------------------------------------------------------------------------------------- the update's statistics (A)


class MinibatchRecord(NamedTuple):
    """What one minibatch of an update's last epoch gives its statistics, from its forward pass before its step."""

    logp_new: np.ndarray  # log pi(a_i|s_i) of the minibatch's actions, float64
    logp_old: np.ndarray  # the batch's stored log-probabilities
    entropy: float  # the mean entropy of the minibatch's policies
    value_loss: float  # the minibatch's value loss


def minibatch_record(logits, actions, logp_old, v_loss) -> MinibatchRecord:
    logp = log_softmax(np.asarray(logits, dtype=float))
    return MinibatchRecord(logp[np.arange(len(actions)), actions], np.asarray(logp_old, dtype=float),
                           float(entropy_bonus(logits)[0]), float(v_loss))


def approx_kl(log_rho) -> float:
    """The mean of (rho - 1) - log rho over a minibatch."""
    return float(np.mean(np.expm1(log_rho) - log_rho))


def statistics(records: list[MinibatchRecord], eps: float, edge: float = 1e-9) -> dict:
    """``ppo_update``'s statistics as A's README defines them: the mean over the last epoch's minibatches of each
    minibatch's approximate KL, clip fraction, entropy and value loss. The clip fraction is given as the least and
    the most it may be: a ratio within ``edge`` (relative) of 1 +- eps counts on either side, as rounding decides."""
    log_rho = [r.logp_new - r.logp_old for r in records]
    beyond = [np.abs(np.expm1(lr)) - eps for lr in log_rho]
    return {"approx_kl": float(np.mean([approx_kl(lr) for lr in log_rho])),
            "clip_fraction": [float(np.mean([np.mean(b > edge * eps) for b in beyond])),
                              float(np.mean([np.mean(b > -edge * eps) for b in beyond]))],
            "entropy": float(np.mean([r.entropy for r in records])),
            "value_loss": float(np.mean([r.value_loss for r in records]))}


def explained_variance(predicted, target) -> float:
    """1 - Var(target - predicted) / Var(target); NaN when the target is constant (Var(target) = 0)."""
    predicted, target = np.asarray(predicted, dtype=float), np.asarray(target, dtype=float)
    spread = np.var(target)
    return float("nan") if spread == 0 else float(1 - np.var(target - predicted) / spread)
