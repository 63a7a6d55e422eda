"""Project Z (template): discounted returns."""

import numpy as np


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = r_t + gamma * G_{t+1}, with G_T = 0, computed backwards in one pass."""
    ### BEGIN SOLUTION
    returns = np.zeros(len(rewards))
    following = 0.0
    for t in reversed(range(len(rewards))):
        following = rewards[t] + gamma * following
        returns[t] = following
    return returns
    ### END SOLUTION
