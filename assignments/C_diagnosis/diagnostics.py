"""Project C: diagnose faulty agents from their training logs (D2L §15.7.6 C).

Given below: ``load_log``, ``per_update`` and ``return_curve`` to read a log, and the four labels.
Yours: one function per diagnostic, each a few lines of numpy, and ``diagnose(log)``, which names an agent's fault
from the diagnostics alone. ``README.md`` beside this file describes the logs; ``capstone-check C`` tells you how far
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
    # YOUR CODE HERE
    raise NotImplementedError()


def logit_magnitude(logits):
    """Spread of each row's logits: (1/A) sum_a |z_a - zbar|, zbar the row's mean. A common shift changes nothing."""
    # YOUR CODE HERE
    raise NotImplementedError()


def approx_kl(logp_new, logp_old):
    """KL(pi_old || pi_new) estimated on samples from pi_old: mean of (rho - 1) - log rho, rho = exp(new - old)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def clip_fraction(logp_new, logp_old, eps):
    """Share of samples whose ratio rho = exp(new - old) left the clip range: mean of 1(|rho - 1| > eps)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def explained_variance(values, returns):
    """1 - Var(R - V) / Var(R): 1 for a perfect critic, 0 for one no better than a constant, NaN if Var(R) = 0."""
    # YOUR CODE HERE
    raise NotImplementedError()


def td_error_stats(td_errors, q_taken) -> dict:
    """{"mean_abs": mean |delta|, "max_abs": max |delta|, "relative": mean |delta| / mean |Q(s, a)|}."""
    # YOUR CODE HERE
    raise NotImplementedError()


def q_overestimation(q_taken, mc_returns, gamma) -> dict:
    """{"vs_mc": mean (Q - G), "ratio_mc": mean Q / mean G, "above_bound": share of Q > 1 / (1 - gamma)}.

    With reward 1 per step no return can exceed 1 / (1 - gamma); G is the discounted Monte Carlo return.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def return_drop(curve):
    """How far returns fell after their peak: 1 - mean(curve after the peak) / peak, NaN entries ignored;
    0 when the peak is the last entry (or there is none)."""
    # YOUR CODE HERE
    raise NotImplementedError()


# ---------------------------------------------------------------- yours: the verdict


def late_half(log: dict) -> np.ndarray:
    """Mask of the transitions logged in the second half of training."""
    return log["update"] >= (log["update"].max() + 1) / 2


def diagnose(log: dict) -> str:
    """One of LABELS, from the diagnostics of ``log`` alone."""
    # YOUR CODE HERE
    raise NotImplementedError()


def my_labels() -> dict:
    """Your verdict on the three logs you were given: {"agent_a": label, "agent_b": label, "agent_c": label}."""
    # YOUR CODE HERE
    raise NotImplementedError()
