"""Project D's known mistakes: each a wrong variant of one piece, computed by the grader on its own inputs, and the
sentence that names it (``autograder.findings``)."""

from __future__ import annotations

import numpy as np

from autograder.findings import Mistake, catalogue
from autograder.projects.d_grpo import oracle
from rlkit.toy import N_PROMPTS, N_RESPONSES, PI_REF, policy, softmax_score


def price(logits, rewards, exploit, tie_counts=True, floor_counts=True, tightest=True, strict=True) -> float:
    """The exploit's price with one of its rules changed."""
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    if np.any(((disadvantage >= 0) if tie_counts else (disadvantage > 0)) & (gap <= 0)):
        return 0.0
    caps = gap[disadvantage > 0] / disadvantage[disadvantage > 0]
    ceiling = (np.min if tightest else np.max)(caps, initial=np.inf)
    floor = np.max(gap[disadvantage < 0] / disadvantage[disadvantage < 0], initial=0.0)
    if not floor_counts:
        return float(ceiling)
    return float(ceiling) if (ceiling > floor if strict else ceiling >= floor) else 0.0


def clipped(pi_x, pi_old_x, ys, A, eps, sides="both", per_sample=True, scored_at=None, low=None, high=None):
    """The clipped surrogate's gradient with one of its parts changed."""
    rho = pi_x[ys] / pi_old_x[ys]
    high, low = (1 + eps if high is None else high), (1 - eps if low is None else low)
    if sides == "swapped":
        stop = ((A < 0) & (rho > high)) | ((A > 0) & (rho < low))
    elif sides == "one":
        stop = (A > 0) & (rho > high)
    else:
        stop = ((A > 0) & (rho > high)) | ((A < 0) & (rho < low))
    gradient = np.where(stop, 0.0, rho * A) @ softmax_score(pi_x if scored_at is None else scored_at, ys)
    return gradient / len(ys) if per_sample else gradient


def step(theta, K, reward, rng, beta=0.0, lr=2.0, epochs=1, eps=0.2, weight=oracle.standardized,
         ratio_to_current=False, first_prompt=False, theta_dropped=False):
    """The reference's grpo_step with one of its parts changed."""
    pi_old = policy(theta)
    draws = [rng.choice(N_RESPONSES, K, p=pi_old[0 if first_prompt else x]) for x in range(N_PROMPTS)]
    weights = [weight(oracle.kl_penalized(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta))
               for x, ys in enumerate(draws)]
    for _ in range(epochs):
        pi = policy(theta)
        against = pi if ratio_to_current else pi_old
        theta = (0 if theta_dropped else theta) + lr * np.array([oracle.clipped_gradient(pi[x], against[x], ys, A, eps)
                                                                 for x, (ys, A) in enumerate(zip(draws, weights))])
    return theta


def _step_with(**changed):
    """A variant of grpo_step called as the grader's judge calls it, (theta, K, reward, rng seed, keyword arguments),
    or as the students' checker does, (theta, K, reward, generator, **keyword arguments): a fresh generator each
    time, so every variant draws the groups the reference drew. ``flip_beta`` negates the case's beta."""
    def variant(theta, K, reward, seed, kwargs=None, **more):
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        kwargs = {**(kwargs or {}), **more, **changed}
        if kwargs.pop("flip_beta", False):
            kwargs["beta"] = -kwargs.get("beta", 0.0)
        return step(theta, K, reward, rng, **kwargs)
    return variant


def _sample_std(r):
    """The sample standard deviation, NaN for a group of one, as numpy's ``std(ddof=1)`` gives it but without the
    warning numpy prints there (the students' kit records this variant on a group of one)."""
    return np.sqrt(np.sum((r - r.mean()) ** 2) / (len(r) - 1)) if len(r) > 1 else np.nan


W, STD, LOO = "D.weights", "group_standardized_weight", "leave_one_out_weight"
MISTAKES = catalogue(
    Mistake("D.weights.sample-std", W, "your standardized weight divides by the sample standard deviation (ddof = 1) "
            "where the chapter's normalize uses the population one", STD,
            lambda r: (r - r.mean()) / (_sample_std(r) + 1e-8)),
    Mistake("D.weights.no-stabilizer", W, "your standardized weight divides by the standard deviation alone, so a "
            "group of equal rewards gives 0 / 0", STD, lambda r: (r - r.mean()) / r.std()),
    Mistake("D.weights.median-centred", W, "your standardized weight is centred on the group's median, not its mean",
            STD, lambda r: (r - np.median(r)) / (r.std() + 1e-8)),
    Mistake("D.weights.loo-divides-by-k", W, "your leave-one-out mean divides the other samples' sum by K, not by "
            "the K - 1 samples it sums", LOO, lambda r: r - (r.sum() - r) / len(r)),
    Mistake("D.weights.loo-includes-self", W, "your leave-one-out mean includes the sample itself", LOO,
            lambda r: r - r.mean()),
    Mistake("D.weights.loo-single-sample", W, "your leave-one-out weight returns a value for a group of one sample, "
            "where there is no other sample to average"),
    Mistake("D.weights.centred-without-mean", W, "your centred weight leaves the rewards as they are, without "
            "subtracting the group's mean", "group_centered_weight", lambda r: r),
    Mistake("D.kl_penalty.sign-flipped", "D.kl_penalty", "your KL penalty is added to the reward instead of "
            "subtracted", "kl_penalized_reward", lambda r, p, q, beta: oracle.kl_penalized(r, p, q, -beta)),
    Mistake("D.kl_penalty.probability-difference", "D.kl_penalty", "your KL penalty uses the difference of the "
            "probabilities instead of the log of their ratio", "kl_penalized_reward",
            lambda r, p, q, beta: r - beta * (p - q)),
    Mistake("D.clip_gradient.sides-swapped", "D.clip_gradient", "your clip stops the gradient on the unfavourable "
            "side of each advantage instead of the favourable one", "clipped_surrogate_gradient",
            lambda *case: clipped(*case, sides="swapped")),
    Mistake("D.clip_gradient.one-side", "D.clip_gradient", "your clip acts only for positive advantages; negative "
            "ones are never clipped", "clipped_surrogate_gradient", lambda *case: clipped(*case, sides="one")),
    Mistake("D.clip_gradient.no-mean", "D.clip_gradient", "your gradient sums over the group instead of averaging "
            "(the 1/K is missing)", "clipped_surrogate_gradient", lambda *case: clipped(*case, per_sample=False)),
    Mistake("D.clip_gradient.fixed-eps", "D.clip_gradient", "your clip range is fixed at 0.8 to 1.2 instead of "
            "following eps", "clipped_surrogate_gradient", lambda *case: clipped(*case, low=0.8, high=1.2)),
    Mistake("D.clip_gradient.score-at-old", "D.clip_gradient", "your gradient takes the score function at pi_old "
            "instead of at the current pi", "clipped_surrogate_gradient",
            lambda pi, old, ys, A, eps: clipped(pi, old, ys, A, eps, scored_at=old)),
    Mistake("D.grpo_step.kl-sign-flipped", "D.grpo_step", "your step adds the KL penalty to the reward instead of "
            "subtracting it", "grpo_step", _step_with(flip_beta=True)),
    Mistake("D.grpo_step.beta-ignored", "D.grpo_step", "your step leaves the KL penalty out whatever beta is",
            "grpo_step", _step_with(beta=0.0)),
    Mistake("D.grpo_step.weight-ignored", "D.grpo_step", "your step ignores its weight argument and always uses "
            "the standardized weight", "grpo_step", _step_with(weight=oracle.standardized)),
    Mistake("D.grpo_step.one-epoch", "D.grpo_step", "your step takes a single ascent step whatever epochs says",
            "grpo_step", _step_with(epochs=1)),
    Mistake("D.grpo_step.theta-dropped", "D.grpo_step", "your step sets theta to lr times the gradient instead of "
            "adding that to theta", "grpo_step", _step_with(theta_dropped=True)),
    # a ratio of the current policy to itself and a gradient always at pi_old make the same steps on the toy: one
    # finding names both
    Mistake("D.grpo_step.ratio-always-one", "D.grpo_step", "your epochs never compare the policy they reached with "
            "the pi_old the group was sampled from, so every ratio stays 1 and nothing is clipped", "grpo_step",
            _step_with(ratio_to_current=True)),
    Mistake("D.grpo_step.one-prompt-sampling", "D.grpo_step", "your step samples every prompt's group from the "
            "first prompt's policy", "grpo_step", _step_with(first_prompt=True)),
    Mistake("D.price_exploit.constant", "D.price_exploit", "your price is one constant, whatever the row",
            "price_exploit", lambda *row: 0.25),
    Mistake("D.price_exploit.floor-ignored", "D.price_exploit", "your price ignores the floor set by responses the "
            "reference disfavours but that earn more", "price_exploit",
            lambda *row: price(*row, floor_counts=False)),
    Mistake("D.price_exploit.loosest-cap", "D.price_exploit", "your price takes the largest of the caps, not the "
            "tightest one", "price_exploit", lambda *row: price(*row, tightest=False)),
    Mistake("D.price_exploit.tie-ignored", "D.price_exploit", "your price ignores a response tied with the exploit's "
            "reference logit that earns at least as much", "price_exploit",
            lambda *row: price(*row, tie_counts=False)),
    Mistake("D.price_exploit.cap-equals-floor", "D.price_exploit", "your price accepts a cap equal to the floor, "
            "where the exploit only ties", "price_exploit", lambda *row: price(*row, strict=False)),
)
