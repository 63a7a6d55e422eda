"""The grader's own arithmetic for Project Z, written from the definition and never shown to students."""

import numpy as np


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = sum_{j >= t} gamma^(j - t) r_j: each later reward weighted by gamma to the power of its distance (a
    matrix product, unlike the student's backward loop, so the two cannot share a mistake)."""
    t = np.arange(len(rewards))
    distance = t[None, :] - t[:, None]
    return np.where(distance >= 0, float(gamma) ** np.maximum(distance, 0), 0.0) @ rewards
