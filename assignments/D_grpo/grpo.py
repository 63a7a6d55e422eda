"""Project D: GRPO from REINFORCE, on the four-prompt verifier toy (D2L §15.7.2–15.7.4).

Given below: a working REINFORCE step and a training loop. Yours: the pieces GRPO adds on top of it, each in its own
function. `README.md` beside this file says what each one must do; `capstone-check D` tells you how far you are.

Conventions, fixed so the grader can replay your runs with its own seeds:
  * one group of K responses per prompt, prompts in order 0..3, drawn with ``rng.choice(N_RESPONSES, K, p=pi[x])``;
  * the reward is scored for the whole group at once, ``reward(x, ys)``;
  * a step returns a new theta of shape (4, 9) and leaves its input untouched.
"""

import numpy as np

from rlkit.toy import N_PROMPTS, N_RESPONSES, PI_REF, THETA_REF, policy, softmax_score


# ---------------------------------------------------------------- given: REINFORCE (Section 14.6)


def reinforce_step(theta, K, reward, rng, lr=2.0):
    """One REINFORCE ascent step with the raw reward as the weight and no baseline.

    g[x] = (1/K) sum_j r_j (e_{y_j} - pi(.|x)),   theta <- theta + lr * g
    It learns even at K = 1: nothing in the weight depends on the other samples.
    """
    pi, g = policy(theta), np.zeros_like(theta)
    for x in range(N_PROMPTS):
        ys = rng.choice(N_RESPONSES, K, p=pi[x])
        r = reward(x, ys)
        g[x] = softmax_score(pi[x], ys).T @ r / K
    return theta + lr * g


def train(K, reward, rng, steps, step=reinforce_step, theta=None, **step_options):
    """Run ``steps`` updates of ``step`` from ``theta`` (the reference by default); return the final theta."""
    theta = THETA_REF.copy() if theta is None else np.array(theta, dtype=float)
    for _ in range(steps):
        theta = step(theta, K, reward, rng, **step_options)
    return theta


# ---------------------------------------------------------------- yours: what GRPO adds


def group_centered_weight(r):
    """The reward minus its group's mean: A_j = r_j - mean(r).

    The mean includes r_j itself, so the update's expectation is (K - 1)/K of the true gradient (Section 14.6).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def group_standardized_weight(r):
    """GRPO's weight: A_j = (r_j - mean(r)) / (std(r) + 1e-8), with the population std (ddof = 0).

    A group whose rewards are all equal gets all-zero weights; so does every group of one (K = 1).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def leave_one_out_weight(r):
    """RLOO's weight: each reward minus the mean of the other K - 1 rewards of its group,

    A_j = r_j - (sum(r) - r_j) / (K - 1) = K/(K - 1) * (r_j - mean(r)),
    which is unbiased. With K = 1 there are no other samples: raise ValueError.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def kl_penalized_reward(r, p, p_ref, beta):
    """Fold the fixed-reference KL penalty into the reward: r_j - beta * log(p_j / p_ref_j).

    ``p`` and ``p_ref`` are the sampled responses' probabilities under the sampling policy and the frozen reference.
    beta = 0 leaves the reward unchanged.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def clipped_surrogate_gradient(pi_x, pi_old_x, ys, A, eps):
    """Gradient w.r.t. theta[x] of the clipped surrogate (Eq. 15.2.10) for one group of K samples:

    L = (1/K) sum_j min(rho_j A_j, clip(rho_j, 1 - eps, 1 + eps) A_j),   rho_j = pi(y_j|x) / pi_old(y_j|x).
    Where the clipped term wins it is constant in theta and carries no gradient: that happens when A_j > 0 and
    rho_j > 1 + eps, or A_j < 0 and rho_j < 1 - eps. Every other term contributes rho_j A_j (e_{y_j} - pi(.|x)) / K.
    At pi = pi_old every rho_j is 1 and this is the plain policy gradient.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def grpo_step(theta, K, reward, rng, beta=0.0, lr=2.0, epochs=1, eps=0.2, weight=group_standardized_weight):
    """One GRPO update: REINFORCE with two lines changed, plus the KL penalty and several epochs.

    Sample one group of K per prompt from pi_old = policy(theta) (in the order of ``reinforce_step``), score it,
    fold in the KL penalty, weight it with ``weight``; then take ``epochs`` ascent steps on the clipped surrogate,
    each against the same pi_old. With epochs = 1 this is exactly the chapter's ``group_step``.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def price_exploit(logits_ref, rewards, exploit):
    """The largest beta at which the exploit is still the most probable response of the tilted optimum

    pi_beta(y) ∝ pi_ref(y) exp(r(y) / beta)   (Eq. 15.3.3), for one prompt.

    The exploit e beats response y when (r_e - r_y) / beta > l_y - l_e, with l the reference logits. Each y that the
    reference prefers (l_y > l_e) caps beta at (r_e - r_y) / (l_y - l_e); each y it disfavours can only set a floor.
    Return the cap (inf if nothing caps it), or 0.0 when no beta > 0 makes the exploit the unique mode.
    """
    # YOUR CODE HERE
    raise NotImplementedError()
