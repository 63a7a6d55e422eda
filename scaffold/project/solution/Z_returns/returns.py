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


def value_step(critic: dict, optimizer, features: np.ndarray, rewards: np.ndarray, gamma: float) -> float:
    """One step of a linear critic toward the discounted returns G of ``rewards``: the loss is
    mean((features @ w + b - G)^2), whose gradient the optimizer (given, over [critic["w"], critic["b"]]) steps on,
    in place. Returns the loss before the step."""
    ### BEGIN SOLUTION
    error = features @ critic["w"] + critic["b"] - discounted_returns(rewards, gamma)
    grads = [2 * features.T @ error / len(error), np.array([2 * error.mean()])]
    optimizer.step(grads)
    return float(np.mean(error ** 2))
    ### END SOLUTION
