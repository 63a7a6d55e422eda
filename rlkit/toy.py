"""The smallest instance of RL for sequence generation: four prompts and a verifier (D2L §15.7.2.3).

Each prompt is a start state, each of the nine candidate responses is one structured action, and the reward is a
verifier's verdict on the response. The policy (Eq. 14.5.1) keeps one row of preferences per prompt.

Rewards are looked up in a table, so ``verify(x, ys)`` scores a whole group of responses at once; for a single
response it returns the same number as the chapter's scalar function.
"""

import numpy as np

PROMPTS = ["2+2", "3*4", "8*8", "9*9"]
ANSWERS = ["4", "12", "64", "81"]
RESPONSES = ["1", "3", "4", "7", "12", "19", "23", "35", "one of 4, 12, 64 or 81"]
N_PROMPTS, N_RESPONSES = len(PROMPTS), len(RESPONSES)
HEDGE = RESPONSES.index("one of 4, 12, 64 or 81")  # the response that lists every answer

EXACT_MATCH = np.array([[float(resp == ans) for resp in RESPONSES] for ans in ANSWERS])
CONTAINS_ANSWER = np.array([[float(ans in resp) for resp in RESPONSES] for ans in ANSWERS])


def verify(x, y):
    """The exact-match verifier: 1 if response ``y`` is prompt ``x``'s answer, else 0."""
    return EXACT_MATCH[x, y]


def sloppy(x, y):
    """The loophole grader: 1 if the answer string appears anywhere in response ``y``."""
    return CONTAINS_ANSWER[x, y]


def policy(theta):
    """pi(y | x) = softmax(theta[x])_y, one row per prompt (Eq. 14.5.1), shifted by the row max for stability."""
    z = np.exp(theta - theta.max(1, keepdims=True))
    return z / z.sum(1, keepdims=True)


def group_draws(pi, K, rng) -> list[np.ndarray]:
    """One group of K responses per prompt from the sampling policy ``pi``, prompts in order (Project D's order of
    draws, which every step follows)."""
    return [rng.choice(N_RESPONSES, K, p=pi[x]) for x in range(N_PROMPTS)]


def reward_table(reward):
    """R[x, y] = reward(x, y) for every prompt and response."""
    return np.array([[reward(x, y) for y in range(N_RESPONSES)] for x in range(N_PROMPTS)], dtype=float)


def success(pi, reward):
    """E_x E_{y ~ pi(.|x)} reward(x, y), prompts drawn uniformly."""
    return (pi * reward_table(reward)).sum(1).mean()


def hedge_probability(pi):
    """The hedge's probability averaged over prompts: the column the beta sweep reports."""
    return pi[:, HEDGE].mean()


def softmax_score(pi_x, ys):
    """grad_theta[x] log pi(y_j | x) = e_{y_j} - pi(.|x) for each sampled response, one row per sample."""
    return np.eye(len(pi_x))[ys] - pi_x


THETA_REF = np.zeros((N_PROMPTS, N_RESPONSES))
THETA_REF[:, HEDGE] = -4.0  # the pretrained reference rarely hedges: log-odds -4 against each ordinary response
PI_REF = policy(THETA_REF)
