"""Where D's pieces depart, in their inputs' own terms: the subjects and features of D's located statements
(``capstone_check.located``), which final grading and the students' checker both read from here."""

from __future__ import annotations

import numpy as np


GROUP_FEATURES = {  # a group's features, as a located statement says them ("... differ only <where>")
    "one-sample": "on groups of one sample",
    "two-samples": "on groups of two samples",
    "three-or-more": "on groups of three samples or more",
    "constant": "on groups of two or more equal rewards",
    "all-equal": "on groups whose rewards are all equal (a group of one sample included)",
    "binary": "on groups of 0/1 rewards that are not all equal",
    "real-valued": "on groups of real-valued rewards",
}


def weights_subject(name: str) -> str:
    return f"the weights of {name}"


def group_features(r) -> dict[str, bool]:
    """Which of ``GROUP_FEATURES`` a reward group has."""
    r = np.asarray(r, dtype=float)
    equal = bool(np.all(r == r[0])) if r.size else True
    binary = bool(np.all((r == 0) | (r == 1)))
    return {"one-sample": r.size == 1, "two-samples": r.size == 2, "three-or-more": r.size >= 3,
            "constant": equal and r.size > 1,
            "all-equal": equal, "binary": binary and not equal, "real-valued": not binary and not equal}


KL_SUBJECT = "your penalized rewards"
KL_FEATURES = {"beta-zero": "when beta = 0", "positive-beta": "when beta is above 0",
               "beta-above-one": "when beta is above 1", "one-sample": "on the group of one sample"}


def kl_features(r, p, p_ref, beta) -> dict[str, bool]:
    return {"beta-zero": beta == 0, "positive-beta": beta > 0, "beta-above-one": beta > 1, "one-sample": len(r) == 1}


CLIP_SUBJECT = "your gradients"
CLIP_FEATURES = {  # a case's features: its region, and for one sample which side of the clip and the advantage's sign
    "theta-old": "at theta = theta_old", "favourable": "beyond the clip on the favourable side",
    "unfavourable": "beyond the clip on the unfavourable side", "inside": "inside the clip range",
    "above": "where the ratio is above 1 + eps", "below": "where the ratio is below 1 - eps",
    "beyond": "beyond the clip, on either side",
    "kept": "where the clip keeps the gradient",  # theta_old, inside the clip range, or beyond it unfavourably
    "positive-advantage": "where the advantage is positive", "negative-advantage": "where the advantage is negative"}


def clip_features(region: int, pi, pi_old, ys, A, eps) -> dict[str, bool]:
    """A case's features; ``region``: its place in D.clip_gradient's regions (theta_old, favourable, unfavourable,
    inside)."""
    rho = pi[ys] / pi_old[ys]
    above, below = bool(np.all(rho > 1 + eps)), bool(np.all(rho < 1 - eps))
    return {"theta-old": region == 0, "favourable": region == 1, "unfavourable": region == 2, "inside": region == 3,
            "above": above, "below": below,
            "beyond": above or below, "kept": region != 1, "positive-advantage": bool(np.all(A > 0)),
            "negative-advantage": bool(np.all(A < 0))}


STEP_SUBJECT = "your steps (new theta minus the given one)"
STEP_FEATURES = {"one-sample": "when K = 1", "positive-beta": "when beta is above 0",
                 "several-epochs": "when epochs is above 1", "weight-given": "when a weight is passed as `weight`",
                 "default-weight": "with the default weight", "sloppy": "with the sloppy reward",
                 "verify": "with the verifier's reward"}


def step_features(case) -> dict[str, bool]:
    K, reward_name, beta, epochs, _, _, weight_name = case
    return {"one-sample": K == 1, "positive-beta": beta > 0, "several-epochs": epochs > 1,
            "weight-given": weight_name is not None, "default-weight": weight_name is None,
            "sloppy": reward_name == "sloppy", "verify": reward_name == "verify"}


PRICE_SUBJECT = "your prices"
PRICE_FEATURES = {
    "toy": "on the toy's four prompts", "random": "on the random rows",
    "floor-binds": "on the rows whose floor binds", "floor-free": "on the rows whose floor does not bind",
    "floor": "on the rows with a floor (a response the reference disfavours that earns more)",
    "tie-same": "on the row where a response ties the exploit's logit and earns the same",
    "tie-more": "on the row where a response ties the exploit's logit and earns more",
    "tie-less": "on the row where a response ties the exploit's logit and earns less",
    "tie": "on the rows where a response ties the exploit's logit",
    "cap-equals-floor": "on the rows whose cap equals their floor",
    "floor-near": "on the row floored by a response half a logit below the exploit",
    "no-beta": "on the rows where no beta makes the exploit the unique mode (price 0)",
}
PRICE_KINDS = {"toy prompt": "toy", "random": "random", "floor binds": "floor-binds",
               "floor does not bind": "floor-free", "logit tie earning the same": "tie-same",
               "logit tie earning more": "tie-more", "logit tie earning less": "tie-less",
               "cap equals floor": "cap-equals-floor", "floor half a logit below": "floor-near"}


def price_features(kind: str, want: float) -> dict[str, bool]:
    """A price row's features: its kind (D.price_exploit's row kinds, "toy prompt" for the toy's), and whether its
    expected price is 0."""
    own = PRICE_KINDS[kind]
    return {**{name: name == own for name in PRICE_KINDS.values()}, "floor": own.startswith("floor"),
            "tie": own.startswith("tie"), "no-beta": want == 0}
