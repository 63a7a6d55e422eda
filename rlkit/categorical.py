"""Categorical distributions over discrete actions, parameterized by logits (one row per state)."""

import numpy as np


def log_softmax(logits):
    """log pi(a|s), stable for large logits."""
    shifted = logits - logits.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def softmax(logits):
    return np.exp(log_softmax(logits))


def log_prob(logits, actions):
    """log pi(a_i | s_i) for each row i."""
    return np.take_along_axis(log_softmax(logits), np.asarray(actions)[:, None], axis=-1)[:, 0]


def entropy(logits):
    """H(pi(.|s)) = -sum_a pi(a|s) log pi(a|s), in nats, per row."""
    logp = log_softmax(logits)
    return -(np.exp(logp) * logp).sum(-1)


def sample(logits, rng: np.random.Generator):
    """One action per row, by inverting the cumulative distribution with one uniform number per row."""
    cdf = np.cumsum(softmax(logits), axis=-1)
    u = rng.random(len(logits))[:, None] * cdf[:, -1:]
    return np.minimum((u >= cdf).sum(-1), logits.shape[-1] - 1)
