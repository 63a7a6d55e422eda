"""Project A's known mistakes: each a wrong variant of one piece (or a configuration of the oracle's update),
computed by the grader on its own inputs, and the sentence that names it (``autograder.findings``)."""

from __future__ import annotations

import numpy as np

from autograder.findings import Mistake, catalogue
from rlkit.categorical import log_softmax


def gae(rewards, values, terminated, truncated, gamma, lam, delta_done=None, bootstrap_from=1, carry_done=None,
        carry_lag=0, use_lam=True, baseline=True):
    """The GAE loop with one of its parts changed: the mask of the TD error, the step it bootstraps from, the mask
    that stops the carry (and its lag), lambda, the returns' baseline."""
    T = len(rewards)
    ends = terminated | truncated
    delta_done = terminated if delta_done is None else delta_done
    carry_done = ends if carry_done is None else carry_done
    advantages, running = np.zeros_like(rewards, dtype=float), 0.0
    for t in reversed(range(T)):
        delta = rewards[t] + gamma * (1 - delta_done[t]) * values[t + bootstrap_from] - values[t]
        running = delta + gamma * (lam if use_lam else 1.0) * (1 - carry_done[t - carry_lag]) * running
        advantages[t] = running
    return advantages, advantages + values[:T] if baseline else advantages


def surrogate(logits, actions, logp_old, advantages, eps, objective_min=True, sides="both", clip_advantage=False,
              with_ratio=True):
    """The clipped surrogate and its gradient with one of its parts changed."""
    B = len(actions)
    logp = log_softmax(logits.astype(float))
    rho = np.exp(logp[np.arange(B), actions] - logp_old)
    other = rho * np.clip(advantages, -eps, eps) if clip_advantage else np.clip(rho, 1 - eps, 1 + eps) * advantages
    objective = (np.minimum if objective_min else np.maximum)(rho * advantages, other).mean()
    up, down = (advantages > 0) & (rho > 1 + eps), (advantages < 0) & (rho < 1 - eps)
    if sides == "swapped":
        up, down = (advantages < 0) & (rho > 1 + eps), (advantages > 0) & (rho < 1 - eps)
    clipped = up if sides == "one" else up | down
    weight = np.where(clipped, 0.0, rho * advantages if with_ratio else advantages) / B
    return objective, weight[:, None] * (np.eye(logits.shape[1])[actions] - np.exp(logp))


def value_loss(values, returns, sign=1.0, half=True):
    error = values - returns
    return (0.5 if half else 1.0) * (error ** 2).mean(), sign * (1.0 if half else 2.0) * error / len(values)


def entropy(logits, sign=1.0, per_sample=True):
    logp = log_softmax(logits.astype(float))
    p, H = np.exp(logp), -(np.exp(logp) * logp).sum(1)
    return H.mean(), -sign * p * (logp + H[:, None]) / (len(logits) if per_sample else 1)


def statistics(records, eps, kl_sign=-1.0, kl_over=np.mean, old_sign=-1.0, clipped_over=np.mean, epoch_over=np.mean,
               by_minibatch=False):
    """ppo_update's four statistics (approx_kl, clip_fraction, entropy, value_loss) from the last epoch's minibatch
    records (``oracle.MinibatchRecord``), with one of their parts changed: log rho's sign in the approximate KL, what
    the KL and the clip fraction take over a minibatch, the old log-probability's sign in log rho, what is taken over
    the epoch's minibatches, or each minibatch's four statistics averaged together."""
    rows = []
    for record in records:
        log_rho = record.logp_new + old_sign * record.logp_old
        rows.append((kl_over(np.expm1(log_rho) + kl_sign * log_rho), clipped_over(np.abs(np.expm1(log_rho)) > eps),
                     record.entropy, record.value_loss))
    if by_minibatch:
        means = [float(np.mean(row)) for row in rows]
        return means if len(means) == 4 else None
    return [float(value) for value in epoch_over(np.array(rows, dtype=float), axis=0)]


def explained(predicted, target, guarded=True, inverted=False):
    """1 - Var(target - predicted) / Var(target) with one of its parts changed: no NaN for a constant target, or the
    ratio upside down."""
    spread, residual = np.var(target), np.var(target - predicted)
    if guarded and spread == 0:
        return float("nan")
    return float(1 - (spread / residual if inverted else residual / spread))


GAE, CLIP, VE, UPDATE = "A.gae", "A.clip_gradient", "A.value_entropy", "A.update"
STATISTICS = "ppo_update.statistics"  # the piece the statistics' mistakes are matched on (A.update's judge)
MISTAKES = catalogue(
    Mistake("A.gae.no-terminal-mask", GAE, "your TD error bootstraps from V(s_{t+1}) even after a termination", "gae",
            lambda r, v, te, tr, g, lam: gae(r, v, te, tr, g, lam, delta_done=np.zeros_like(te))),
    Mistake("A.gae.bootstrap-from-same-step", GAE, "your TD error bootstraps from V(s_t), the value of the step "
            "itself, instead of the next step's", "gae", lambda *case: gae(*case, bootstrap_from=0)),
    Mistake("A.gae.truncation-as-termination", GAE, "your TD error treats a truncation like a termination and does "
            "not bootstrap at a time-out", "gae", lambda r, v, te, tr, g, lam: gae(r, v, te, tr, g, lam,
                                                                                delta_done=te | tr)),
    Mistake("A.gae.no-lambda", GAE, "your GAE recursion carries the next advantage discounted by gamma alone, "
            "without lambda", "gae", lambda *case: gae(*case, use_lam=False)),
    Mistake("A.gae.returns-without-baseline", GAE, "your returns are the advantages alone, without adding V(s_t) "
            "back", "gae", lambda *case: gae(*case, baseline=False)),
    Mistake("A.gae.done-mask-lagged", GAE, "your GAE recursion stops the carry one step late: it reads the episode "
            "end of the previous step", "gae", lambda *case: gae(*case, carry_lag=1)),
    Mistake("A.gae.carries-across-truncation", GAE, "your GAE recursion carries advantages across a truncation, into "
            "the next episode", "gae", lambda r, v, te, tr, g, lam: gae(r, v, te, tr, g, lam, carry_done=te)),
    Mistake("A.batch.reset-steps-kept", "A.batch", "your batch keeps the reset steps that follow an episode's end"),
    Mistake("A.batch.next-values", "A.batch", "your batch's values are V(s_{t+1}), one step late"),
    Mistake("A.ratio.inverted", "A.ratio", "your ratio is pi_old / pi_new, upside down", "importance_ratio",
            lambda new, old: np.exp(old - new)),
    Mistake("A.ratio.log-probs-not-shuffled", "A.ratio", "your minibatch takes its stored log-probs in batch order "
            "instead of indexing them with the minibatch's shuffled indices"),
    Mistake("A.clip_gradient.max-for-min", CLIP, "your clipped objective takes the larger of the two terms instead "
            "of the smaller", "clipped_surrogate", lambda *case: surrogate(*case, objective_min=False)),
    Mistake("A.clip_gradient.sides-swapped", CLIP, "your clip stops the gradient on the unfavourable side of each "
            "advantage instead of the favourable one", "clipped_surrogate",
            lambda *case: surrogate(*case, sides="swapped")),
    Mistake("A.clip_gradient.advantage-clipped", CLIP, "your objective clips the advantage instead of the ratio",
            "clipped_surrogate", lambda *case: surrogate(*case, clip_advantage=True)),
    Mistake("A.clip_gradient.one-side", CLIP, "your clip acts only for positive advantages; negative ones are never "
            "clipped", "clipped_surrogate", lambda *case: surrogate(*case, sides="one")),
    Mistake("A.clip_gradient.no-ratio-in-gradient", CLIP, "your gradient leaves the ratio out: it weighs each "
            "sample by its advantage alone", "clipped_surrogate", lambda *case: surrogate(*case, with_ratio=False)),
    Mistake("A.value_entropy.value-gradient-sign", VE, "your value loss's gradient has its sign flipped",
            "value_loss", lambda v, r: value_loss(v, r, sign=-1.0)),
    Mistake("A.value_entropy.value-without-half", VE, "your value loss leaves out the factor one half", "value_loss",
            lambda v, r: value_loss(v, r, half=False)),
    Mistake("A.value_entropy.entropy-gradient-sign", VE, "your entropy's gradient has its sign flipped",
            "entropy_bonus", lambda z: entropy(z, sign=-1.0)),
    Mistake("A.value_entropy.entropy-gradient-not-averaged", VE, "your entropy's gradient is not divided by the "
            "batch size, while the entropy is averaged", "entropy_bonus", lambda z: entropy(z, per_sample=False)),
    Mistake("A.value_entropy.explained-variance-unguarded", VE, "your explained_variance divides by Var(target) even "
            "when it is 0, instead of returning NaN for a constant target", "explained_variance",
            lambda p, t: explained(p, t, guarded=False)),
    Mistake("A.value_entropy.explained-variance-inverted", VE, "your explained_variance has its ratio upside down: "
            "Var(target - predicted) belongs on top", "explained_variance",
            lambda p, t: explained(p, t, inverted=True)),
    # the update's mistakes: (Project B's details switched, config values changed) of the oracle's update
    Mistake("A.update.advantages-not-normalized", UPDATE, "your update does not normalize the advantages per "
            "minibatch", None, ({"normalize_advantages": False}, {})),
    Mistake("A.update.gradients-not-clipped", UPDATE, "your update does not clip the joint gradient norm to "
            "max_grad_norm", None, ({"clip_gradients": False}, {})),
    Mistake("A.update.clip-eps-fixed", UPDATE, "your update clips the surrogate at 0.2 whatever config.clip_eps "
            "says", None, ({}, {"clip_eps": 0.2})),
    Mistake("A.update.max-grad-norm-fixed", UPDATE, "your update clips the gradient norm at 0.5 whatever "
            "config.max_grad_norm says", None, ({}, {"max_grad_norm": 0.5})),
    Mistake("A.update.entropy-descended", UPDATE, "your update descends the entropy bonus instead of ascending it",
            None, ({}, {"ent_coef": -0.01})),
    Mistake("A.update.vf-coef-ignored", UPDATE, "your update adds the value loss without config.vf_coef", None,
            ({}, {"vf_coef": 1.0})),
    Mistake("A.update.one-epoch", UPDATE, "your update makes a single pass over the batch whatever config.epochs "
            "says", None, ({"multiple_epochs": False}, {})),
    # the statistics' mistakes: the networks are right, the four numbers ppo_update returns are not
    Mistake("A.update.kl-adds-log-ratio", UPDATE, "your approx_kl adds log rho to rho - 1 instead of subtracting it",
            STATISTICS, lambda records, eps: statistics(records, eps, kl_sign=1.0)),
    Mistake("A.update.kl-summed", UPDATE, "your approx_kl sums (rho - 1) - log rho over each minibatch instead of "
            "averaging it", STATISTICS, lambda records, eps: statistics(records, eps, kl_over=np.sum)),
    Mistake("A.update.statistics-summed", UPDATE, "your statistics sum the last epoch's minibatches instead of "
            "averaging them", STATISTICS, lambda records, eps: statistics(records, eps, epoch_over=np.sum)),
    Mistake("A.update.statistics-old-log-prob-added", UPDATE, "your statistics take log rho as the new "
            "log-probability plus the old one instead of minus it", STATISTICS,
            lambda records, eps: statistics(records, eps, old_sign=1.0)),
    Mistake("A.update.clip-fraction-counted", UPDATE, "your clip_fraction counts the samples beyond the clip instead "
            "of taking their share of the minibatch", STATISTICS,
            lambda records, eps: statistics(records, eps, clipped_over=np.sum)),
    Mistake("A.update.statistics-mixed", UPDATE, "your statistics average each minibatch's four numbers together "
            "(over the wrong axis) instead of each statistic over the minibatches", STATISTICS,
            lambda records, eps: statistics(records, eps, by_minibatch=True)),
)
