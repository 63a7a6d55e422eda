"""Project C: diagnose faulty agents from their training logs (D2L §15.7.6 C).

Given below: ``load_log``, ``per_update`` and ``return_curve`` to read a log, and the four labels.
Yours: one function per diagnostic, each a few lines of numpy, and ``diagnose(log)``, which names an agent's fault
from the diagnostics alone. ``README.md`` beside this file describes the logs; ``autograder check C`` tells you how far
you are. Finally, ``my_labels()`` gives your verdict on the three logs in ``logs/``.
"""

from pathlib import Path

import numpy as np

LABELS = ("saturated_policy", "untrained_critic", "small_replay_buffer", "healthy")
LOGS = Path(__file__).resolve().parent / "logs"


# ---------------------------------------------------------------- given: reading a log


def load_log(path) -> dict:
    """A log as a dict of numpy arrays (see README.md for the fields)."""
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def per_update(log: dict, key: str) -> list:
    """``log[key]`` split by update: one array per update that logged transitions, in update order."""
    return [log[key][log["update"] == u] for u in np.unique(log["update"])]


def return_curve(log: dict) -> np.ndarray:
    """Mean return of the episodes that finished in each update; NaN for an update in which none finished."""
    n = int(max(log["update"].max(initial=-1), log["episode_update"].max(initial=-1))) + 1
    curve = np.full(n, np.nan)
    for u in range(n):
        finished = log["episode_returns"][log["episode_update"] == u]
        if len(finished):
            curve[u] = finished.mean()
    return curve


# ---------------------------------------------------------------- yours: the diagnostics


def policy_entropy(logits):
    """Entropy of each row's softmax policy, in nats: H = -sum_a pi_a log pi_a, pi = softmax(z).

    Must stay finite for one-hot policies (huge logits, or -inf for an impossible action): 0 log 0 = 0.
    """
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=float)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    p = np.exp(logp)
    return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)
    ### END SOLUTION


def logit_magnitude(logits):
    """Spread of each row's logits: (1/A) sum_a |z_a - zbar|, zbar the row's mean. A common shift changes nothing."""
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=float)
    return np.mean(np.abs(z - z.mean(axis=1, keepdims=True)), axis=1)
    ### END SOLUTION


def approx_kl(logp_new, logp_old):
    """KL(pi_old || pi_new) estimated on samples from pi_old: mean of (rho - 1) - log rho, rho = exp(new - old)."""
    ### BEGIN SOLUTION
    log_rho = np.asarray(logp_new, dtype=float) - np.asarray(logp_old, dtype=float)
    return float(np.mean(np.expm1(log_rho) - log_rho))
    ### END SOLUTION


def clip_fraction(logp_new, logp_old, eps):
    """Share of samples whose ratio rho = exp(new - old) left the clip range: mean of 1(|rho - 1| > eps)."""
    ### BEGIN SOLUTION
    rho = np.exp(np.asarray(logp_new, dtype=float) - np.asarray(logp_old, dtype=float))
    return float(np.mean(np.abs(rho - 1) > eps))
    ### END SOLUTION


def explained_variance(values, returns):
    """1 - Var(R - V) / Var(R): 1 for a perfect critic, 0 for one no better than a constant, NaN if Var(R) = 0."""
    ### BEGIN SOLUTION
    values, returns = np.asarray(values, dtype=float), np.asarray(returns, dtype=float)
    spread = np.var(returns)
    if spread == 0:
        return float("nan")
    return float(1 - np.var(returns - values) / spread)
    ### END SOLUTION


def td_error_stats(td_errors, q_taken) -> dict:
    """{"mean_abs": mean |delta|, "max_abs": max |delta|, "relative": mean |delta| / mean |Q(s, a)|}."""
    ### BEGIN SOLUTION
    td, q = np.abs(np.asarray(td_errors, dtype=float)), np.abs(np.asarray(q_taken, dtype=float))
    return {"mean_abs": float(td.mean()), "max_abs": float(td.max()), "relative": float(td.mean() / q.mean())}
    ### END SOLUTION


def q_overestimation(q_taken, mc_returns, gamma) -> dict:
    """{"vs_mc": mean (Q - G), "ratio_mc": mean Q / mean G, "above_bound": share of Q > 1 / (1 - gamma)}.

    With reward 1 per step no return can exceed 1 / (1 - gamma); G is the discounted Monte Carlo return.
    """
    ### BEGIN SOLUTION
    q, g = np.asarray(q_taken, dtype=float), np.asarray(mc_returns, dtype=float)
    return {"vs_mc": float(np.mean(q - g)), "ratio_mc": float(q.mean() / g.mean()),
            "above_bound": float(np.mean(q > 1 / (1 - gamma)))}
    ### END SOLUTION


def return_drop(curve):
    """How far returns fell after their peak: 1 - mean(curve after the peak) / peak, NaN entries ignored;
    0 when the peak is the last entry (or there is none)."""
    ### BEGIN SOLUTION
    y = np.asarray(curve, dtype=float)
    y = y[~np.isnan(y)]
    if len(y) == 0:
        return 0.0
    peak = int(np.argmax(y))
    if peak == len(y) - 1:
        return 0.0
    return float(1 - y[peak + 1:].mean() / y[peak])
    ### END SOLUTION


# ---------------------------------------------------------------- yours: the verdict


def late_half(log: dict) -> np.ndarray:
    """Mask of the transitions logged in the second half of training."""
    return log["update"] >= (log["update"].max() + 1) / 2


def diagnose(log: dict) -> str:
    """One of LABELS, from the diagnostics of ``log`` alone."""
    ### BEGIN SOLUTION
    late = late_half(log)
    if "q_values" in log:  # a value-based agent: do its TD errors spike against its values late in training?
        q = log["q_values"][np.arange(len(late)), log["actions"]]
        worst = max(td_error_stats(log["td_errors"][now], q[now])["relative"]
                    for u in np.unique(log["update"][late]) for now in [log["update"] == u])
        return "small_replay_buffer" if worst > 0.05 else "healthy"
    if np.mean(policy_entropy(log["logits"])) < 0.2:  # ln 2 = 0.69 is uniform over two actions
        return "saturated_policy"
    if explained_variance(log["values"][late], log["returns"][late]) < 0.3:
        return "untrained_critic"
    return "healthy"
    ### END SOLUTION


def my_labels() -> dict:
    """Your verdict on the three logs you were given: {"agent_a": label, "agent_b": label, "agent_c": label}."""
    ### BEGIN SOLUTION
    return {path.stem: diagnose(load_log(path)) for path in sorted(LOGS.glob("*.npz"))}
    ### END SOLUTION
