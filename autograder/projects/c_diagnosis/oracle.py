"""The grader's own diagnostics for Project C, written from their equations, independent of any submission."""

from __future__ import annotations

import numpy as np


def entropy_nats(logits):
    """H = -sum_a pi_a log pi_a per row, pi = softmax(logits); a zero-probability action adds 0."""
    z = np.asarray(logits, float)
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    p = np.exp(logp)
    return -np.where(p > 0, p * np.where(np.isfinite(logp), logp, 0.0), 0.0).sum(1)


def logit_magnitude(logits):
    """mean_a |z_a - mean_b z_b| per row: the spread of the logits, blind to a shift common to all actions."""
    z = np.asarray(logits, float)
    return np.abs(z - z.mean(1, keepdims=True)).mean(1)


def approx_kl(logp_new, logp_old):
    """mean (rho - 1) - log rho with rho = exp(logp_new - logp_old): KL(old || new) estimated on the old samples."""
    log_rho = np.asarray(logp_new, float) - np.asarray(logp_old, float)
    return float(np.mean(np.expm1(log_rho) - log_rho))


def clip_fraction(logp_new, logp_old, eps):
    """Share of samples with |rho - 1| > eps."""
    rho = np.exp(np.asarray(logp_new, float) - np.asarray(logp_old, float))
    return float(np.mean(np.abs(rho - 1) > eps))


def explained_variance(values, returns):
    """1 - Var(R - V) / Var(R); NaN when the returns are constant (Var(R) = 0)."""
    values, returns = np.asarray(values, float), np.asarray(returns, float)
    spread = np.var(returns)
    return float("nan") if spread == 0 else float(1 - np.var(returns - values) / spread)


def td_error_stats(td_errors, q_taken):
    """mean |delta|, max |delta|, and mean |delta| / mean |Q(s, a)| (the TD error relative to the values)."""
    td, q = np.abs(np.asarray(td_errors, float)), np.abs(np.asarray(q_taken, float))
    return {"mean_abs": float(td.mean()), "max_abs": float(td.max()), "relative": float(td.mean() / q.mean())}


def q_overestimation(q_taken, mc_returns, gamma):
    """mean (Q - G), mean Q / mean G, and the share of Q above the largest possible return 1 / (1 - gamma)."""
    q, g = np.asarray(q_taken, float), np.asarray(mc_returns, float)
    return {"vs_mc": float(np.mean(q - g)), "ratio_mc": float(q.mean() / g.mean()),
            "above_bound": float(np.mean(q > 1 / (1 - gamma)))}


def return_drop(curve):
    """1 - mean(curve after its peak) / peak, ignoring NaN entries; 0 when the peak is the last entry."""
    y = np.asarray(curve, float)
    y = y[~np.isnan(y)]
    if len(y) == 0:
        return 0.0
    peak = int(np.argmax(y))
    return 0.0 if peak == len(y) - 1 else float(1 - y[peak + 1:].mean() / y[peak])


def return_curve(log):
    """Mean return of the episodes that finished in each update; NaN where none did."""
    n = int(log["update"].max()) + 1 if len(log["update"]) else 0
    n = max(n, int(log["episode_update"].max()) + 1 if len(log["episode_update"]) else 0)
    out = np.full(n, np.nan)
    for u in range(n):
        mask = log["episode_update"] == u
        if mask.any():
            out[u] = log["episode_returns"][mask].mean()
    return out


def panel(log) -> dict:
    """Per-update series of every diagnostic that applies to the log (what the report draws)."""
    updates = np.unique(log["update"])
    series = {"return": return_curve(log).tolist()}
    rows = {}
    for u in updates:
        m = log["update"] == u
        if "logits" in log:
            rows.setdefault("entropy", []).append(float(entropy_nats(log["logits"][m]).mean()))
            rows.setdefault("logit magnitude", []).append(float(logit_magnitude(log["logits"][m]).mean()))
            rows.setdefault("approx KL", []).append(approx_kl(log["logp_new"][m], log["logp_old"][m]))
            rows.setdefault("clip fraction", []).append(clip_fraction(log["logp_new"][m], log["logp_old"][m],
                                                                      float(log["clip_eps"])))
            rows.setdefault("explained variance", []).append(explained_variance(log["values"][m], log["returns"][m]))
        else:
            q = log["q_values"][m][np.arange(m.sum()), log["actions"][m]]
            stats = td_error_stats(log["td_errors"][m], q)
            over = q_overestimation(q, log["mc_returns"][m], float(log["gamma"]))
            rows.setdefault("TD error / |Q|", []).append(stats["relative"])
            rows.setdefault("Q / MC return", []).append(over["ratio_mc"])
            rows.setdefault("share of Q above 1/(1-gamma)", []).append(over["above_bound"])
    series.update(rows)
    series["updates"] = updates.tolist()
    return series
