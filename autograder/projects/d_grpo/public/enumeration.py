"""Project D's enumeration in both halves: the expectation over every group, from the group probabilities recorded at
release (``collect_enumeration``, ``judge_enumeration``); final grading runs the same two."""

from __future__ import annotations

import itertools

import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.student import StudentError, as_array
from capstone_check.values import decode
from capstone_check.verdict import Verdict
from rlkit.toy import N_PROMPTS, N_RESPONSES

WEIGHTS = {"centered": "group_centered_weight", "loo": "leave_one_out_weight"}  # the key -> the student's weight


def enumeration(student, spec: dict) -> Verdict:
    """D.enumeration, collected and judged in one process."""
    return judge_enumeration(spec, collect_enumeration(student, spec))


def collect_enumeration(student, spec: dict) -> dict:
    """The student's two weights on every group of K responses of each case's reward table (``weights``: per key,
    case and K, per prompt and group), and on each distinct reward group once (``named``: what names a mistake)."""
    fns = {key: student.fn(name) for key, name in WEIGHTS.items()}
    weights = {}
    for c, case in enumerate(spec["cases"]):
        R = decode(case["rewards"])
        for K in spec["ks"]:
            groups = list(itertools.product(range(N_RESPONSES), repeat=K))
            for key, fn in fns.items():
                weights[f"{key}/{c}/{K}"] = np.array([[as_array(fn(R[x, list(g)]), (K,), f"group_{key} weight")
                                                       for g in groups] for x in range(N_PROMPTS)])
    named = {key: [as_array(fn(np.array(r)), (len(r),), f"group_{key} weight") for r in spec["groups"]]
             for key, fn in fns.items()}
    return {"weights": weights, "named": named}


def judge_enumeration(spec: dict, collected) -> Verdict:
    """Every group of K responses weighted by the student's weights (``collected``, untrusted where another process
    sent it): the expected update must be (K-1)/K of the exact gradient for centred weights, and exactly the gradient
    for leave-one-out."""
    weights = collected.get("weights") if isinstance(collected, dict) else None
    if not isinstance(weights, dict):
        raise StudentError("the weights collected are not the enumeration's", "invalid")
    failures, tests = [], 0
    for c, case in enumerate(spec["cases"]):
        pi, g = decode(case["pi"]), decode(case["gradient"])
        for K in spec["ks"]:
            groups = np.array(list(itertools.product(range(N_RESPONSES), repeat=K)))
            chances = decode(case["chances"][str(K)])  # (prompt, group): how likely each group is
            for key, factor, what in (("centered", (K - 1) / K, f"(K-1)/K = {(K - 1) / K:.3f} of"),
                                      ("loo", 1.0, "exactly")):
                tests += 1
                w = np.asarray(weights[f"{key}/{c}/{K}"], dtype=float)
                if w.shape != (N_PROMPTS, len(groups), K):
                    raise StudentError(f"{key} weights for K = {K}: expected shape {(N_PROMPTS, len(groups), K)}, "
                                       f"found {w.shape}", "invalid")
                u = np.stack([_expected(pi[x], groups, w[x], chances[x]) for x in range(N_PROMPTS)])
                error = np.abs(u - factor * g).max()
                if not error <= spec["tol"] * max(1.0, np.abs(g).max()):
                    ratio = float((u * g).sum() / (g * g).sum())
                    failures.append(f"{key} weights, K = {K}, {case['label']}: the expected update should be {what} "
                                    f"the exact gradient; it is {ratio:.4f} of it (max |error| {error:.2e})")
    return with_findings(Verdict.of(failures, tests, "the expected updates match (K-1)/K and 1 times the exact "
                                    "gradient"), spec, _weight_mistakes(spec, collected) if failures else [])


def _weight_mistakes(spec: dict, collected: dict) -> list[str]:
    """The recorded mistakes of either weight whose weights of every enumerated reward group (``spec["groups"]``,
    each once) are the student's."""
    named = collected.get("named")
    if not isinstance(named, dict):
        return []
    return [mid for key in WEIGHTS if isinstance(named.get(key), list) and len(named[key]) == len(spec["groups"])
            for mid in recognised(spec, named[key], spec["mistakes_of"].get(key, []))]


def _expected(pi_x, groups, w, chance):
    """sum over groups of chance(g) * mean_k w_k (e_{y_k} - pi_x)."""
    scores = np.eye(len(pi_x))[groups] - pi_x
    return np.einsum("g,gk,gkv->v", chance, w, scores) / groups.shape[1]
