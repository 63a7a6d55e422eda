"""Project C's known mistakes: each a wrong variant of one diagnostic, computed by the grader on its own inputs, and
the sentence that names it (``autograder.findings``)."""

from __future__ import annotations

import numpy as np

from autograder.findings import Mistake, catalogue


def entropy(logits, bits=False, zero_log_zero=True):
    z = np.asarray(logits, dtype=float)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    p = np.exp(logp)
    H = -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1) if zero_log_zero else -np.sum(p * logp,
                                                                                                             axis=1)
    return H / np.log(2) if bits else H


def explained(values, returns, inverted=False, constant=float("nan")):
    spread = np.var(returns)
    if spread == 0:
        return constant
    return float(1 - spread / np.var(returns - values)) if inverted else float(1 - np.var(returns - values) / spread)


def td_stats(td, q, signed=False, mean_q=False):
    t, a = (np.asarray(td, float) if signed else np.abs(td)), np.abs(q)
    return [float(t.mean()), float(t.max()), float(t.mean() / (abs(np.mean(q)) if mean_q else a.mean()))]


def overestimation(q, g, gamma, bound=None):
    return [float(np.mean(q - g)), float(q.mean() / g.mean()),
            float(np.mean(q > (1 / (1 - gamma) if bound is None else bound(gamma))))]


def return_drop(curve):
    y = np.asarray(curve, dtype=float)
    y = y[~np.isnan(y)]
    if len(y) == 0:
        return 0.0
    return float(1 - y[1:].mean() / y[0]) if len(y) > 1 else 0.0


MISTAKES = catalogue(
    Mistake("C.entropy.bits", "C.entropy", "your entropy is in bits (log base 2) where nats are asked for",
            "policy_entropy", lambda z: entropy(z, bits=True)),
    Mistake("C.entropy.zero-log-zero", "C.entropy", "your entropy leaves 0 log 0 as NaN instead of counting it as 0",
            "policy_entropy", lambda z: entropy(z, zero_log_zero=False)),
    Mistake("C.entropy.magnitude-not-centred", "C.entropy", "your logit magnitude averages the raw logits' size "
            "without centring each row first", "logit_magnitude", lambda z: np.mean(np.abs(z), axis=1)),
    Mistake("C.kl_clip.mean-log-ratio", "C.kl_clip", "your approximate KL is the mean log-ratio, which can be "
            "negative, instead of mean((rho - 1) - log rho)", "approx_kl",
            lambda new, old: float(np.mean(old - new))),
    Mistake("C.kl_clip.one-sided-clip-fraction", "C.kl_clip", "your clip fraction counts only ratios above "
            "1 + eps, not those below 1 - eps", "clip_fraction",
            lambda new, old, eps: float(np.mean(np.exp(new - old) - 1 > eps))),
    Mistake("C.explained_variance.inverted", "C.explained_variance", "your explained variance has the ratio upside "
            "down: Var(R - V) belongs on top", "explained_variance", lambda v, r: explained(v, r, inverted=True)),
    Mistake("C.explained_variance.zero-for-constant", "C.explained_variance", "your explained variance is 0 for "
            "constant returns, where it is undefined (NaN)", "explained_variance",
            lambda v, r: explained(v, r, constant=0.0)),
    Mistake("C.td_q.signed-td-errors", "C.td_q", "your TD-error statistics average the errors with their sign "
            "instead of their size", "td_error_stats", lambda td, q: td_stats(td, q, signed=True)),
    Mistake("C.td_q.relative-to-mean-q", "C.td_q", "your relative TD error divides by the size of the mean Q-value "
            "instead of the mean size of the Q-values", "td_error_stats", lambda td, q: td_stats(td, q, mean_q=True)),
    Mistake("C.td_q.bound-one-over-gamma", "C.td_q", "your bound on Q is 1 / gamma instead of 1 / (1 - gamma)",
            "q_overestimation", lambda q, g, gamma: overestimation(q, g, gamma, bound=lambda x: 1 / x)),
    Mistake("C.return_drop.from-first-return", "C.return_drop", "your drop is measured from the first return instead "
            "of the peak", "return_drop", return_drop),
)


def diagnose(log: dict, critic_first=False, td_rows="per_update", ev_rows="late", entropy_line=0.2, ev_line=0.3,
             value_based_faulty=False, always=None) -> str:
    """The reference's diagnose with one of its rules changed: the order of the two checks of a policy-gradient
    agent, the rows its TD errors or explained variance are read on, its lines, or a label said whatever the log."""
    if always:
        return always
    late = log["update"] >= (log["update"].max() + 1) / 2
    if "q_values" in log:
        q = log["q_values"][np.arange(len(late)), log["actions"]]
        rows = {"whole": [np.ones_like(late)], "late": [late],
                "per_update": [log["update"] == u for u in np.unique(log["update"][late])]}[td_rows]
        worst = max(float(np.abs(log["td_errors"][now]).mean() / np.abs(q[now]).mean()) for now in rows)
        return "small_replay_buffer" if value_based_faulty or worst > 0.05 else "healthy"
    z = np.asarray(log["logits"], dtype=float)
    saturated = np.mean(entropy(z)) < entropy_line
    ev_at = late if ev_rows == "late" else np.ones_like(late)
    critic_fails = explained(log["values"][ev_at], log["returns"][ev_at]) < ev_line
    for label, holds in ([("untrained_critic", critic_fails), ("saturated_policy", saturated)] if critic_first
                         else [("saturated_policy", saturated), ("untrained_critic", critic_fails)]):
        if holds:
            return label
    return "healthy"


RULES, FRESH = "C.diagnose_rules", "C.fresh_runs"
MISTAKES.update(catalogue(
    Mistake("C.diagnose_rules.critic-before-policy", RULES, "your diagnose reads the critic before the policy, so "
            "a saturated policy whose critic also fails is called an untrained critic", "diagnose",
            lambda log: diagnose(log, critic_first=True)),
    Mistake("C.diagnose_rules.td-pooled-over-log", RULES, "your diagnose pools the TD errors of the whole log "
            "instead of taking the worst late update", "diagnose", lambda log: diagnose(log, td_rows="whole")),
    Mistake("C.diagnose_rules.td-pooled-over-late-half", RULES, "your diagnose pools the late half's TD errors "
            "instead of taking the worst late update", "diagnose", lambda log: diagnose(log, td_rows="late")),
    Mistake("C.diagnose_rules.variance-over-whole-run", RULES, "your diagnose reads the explained variance over "
            "the whole run instead of its late half", "diagnose", lambda log: diagnose(log, ev_rows="whole")),
    Mistake("C.diagnose_rules.lines-swapped", RULES, "your diagnose has the entropy and explained-variance lines "
            "swapped", "diagnose", lambda log: diagnose(log, entropy_line=0.3, ev_line=0.2)),
    *[Mistake(f"C.fresh_runs.always-{label}", FRESH, f"your diagnose says {label} whatever the log", "diagnose",
              lambda log, label=label: diagnose(log, always=label))
      for label in ("healthy", "saturated_policy", "untrained_critic", "small_replay_buffer")],
    Mistake("C.fresh_runs.critic-line-too-high", FRESH, "your explained-variance line sits far above the README's, "
            "so healthy critics are called untrained", "diagnose", lambda log: diagnose(log, ev_line=0.97)),
    Mistake("C.fresh_runs.value-based-always-faulty", FRESH, "your diagnose calls every value-based agent's replay "
            "buffer too small, whatever its TD errors", "diagnose", lambda log: diagnose(log, value_based_faulty=True)),
))
