"""The grader's own arithmetic for Project D, written from the chapter, independent of any submission.

The grader judges the student's data against these, so they are written for checking, not for teaching: vectorized
where the chapter loops, and each one small enough to verify by eye.
"""

import numpy as np

from rlkit.toy import PI_REF, group_draws, policy, softmax_score


def standardized(r):
    return (r - r.mean()) / (r.std() + 1e-8)


def centered(r):
    return r - r.mean()


def leave_one_out(r):
    return len(r) / (len(r) - 1) * (r - r.mean())


def kl_penalized(r, p, p_ref, beta):
    return r - beta * np.log(p / p_ref)


def clipped_gradient(pi_x, pi_old_x, ys, A, eps):
    rho = pi_x[ys] / pi_old_x[ys]
    live = ~(((A > 0) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps)))
    return (live * rho * A) @ softmax_score(pi_x, ys) / len(ys)


def grpo_step(theta, K, reward, rng, beta=0.0, lr=2.0, epochs=1, eps=0.2, weight=standardized):
    """The chapter's group_step generalized to several clipped epochs against the sampling policy."""
    pi_old = policy(theta)
    draws = group_draws(pi_old, K, rng)
    weights = [weight(kl_penalized(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta))
               for x, ys in enumerate(draws)]
    for _ in range(epochs):
        pi = policy(theta)
        theta = theta + lr * np.array([clipped_gradient(pi[x], pi_old[x], ys, A, eps)
                                       for x, (ys, A) in enumerate(zip(draws, weights))])
    return theta


def exact_gradient(pi, R):
    """grad_theta E_{y~pi} R[x, y] per prompt: sum_y pi(y) R(y) (e_y - pi)."""
    return pi * R - pi * (pi * R).sum(1, keepdims=True)


def expected_update(pi, groups, weights):
    """E over every group of K of (1/K) sum_j w_j (e_{y_j} - pi), from the weights given for each group.

    ``groups`` is (G, K) response indices, ``weights`` is (N_PROMPTS, G, K).
    """
    K = groups.shape[1]
    out = np.zeros_like(pi)
    for x in range(len(pi)):
        probability = np.prod(pi[x][groups], axis=1)                     # (G,)
        scores = np.eye(pi.shape[1])[groups] - pi[x]                       # (G, K, V)
        out[x] = np.einsum("g,gk,gkv->v", probability, weights[x], scores) / K
    return out


def price_exploit(logits_ref, rewards, exploit):
    """sup{beta > 0 : the exploit is the unique mode of pi_ref exp(r / beta)}; 0 when no beta makes it so."""
    others = [y for y in range(len(rewards)) if y != exploit]
    gap = rewards[exploit] - rewards[others]
    disadvantage = logits_ref[others] - logits_ref[exploit]
    caps = [g / d for g, d in zip(gap, disadvantage) if d > 0]
    floors = [g / d for g, d in zip(gap, disadvantage) if d < 0]
    feasible = all(g > 0 for g, d in zip(gap, disadvantage) if d >= 0)
    cap, floor = min(caps, default=np.inf), max(floors, default=0.0)
    return float(cap) if feasible and cap > floor else 0.0
