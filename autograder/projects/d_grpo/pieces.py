"""Project D's checks of single pieces, each on inputs the grader makes from its seed and judges with the oracle."""

from __future__ import annotations

import itertools

import numpy as np
from pydantic import Field

from autograder.checks import Bar, Check, Malformed, ToleranceBar, Verdict
from autograder.comparisons import beyond
from autograder.findings import matched, of_piece
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, locate, located_call, out_array
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from capstone_check.kinds import d_located
from capstone_check.student import as_array
from rlkit.toy import CONTAINS_ANSWER, EXACT_MATCH, N_PROMPTS, N_RESPONSES, THETA_REF, policy, sloppy, verify

REWARDS = {"verify": verify, "sloppy": sloppy}


def fmt(a) -> str:
    """A small array as a message prints it; one of more than 8 numbers by its shape alone."""
    array = np.asarray(a, dtype=float)
    if array.size > 8:
        return f"an array of shape {array.shape}"
    return np.array2string(array, precision=4, suppress_small=True, max_line_width=200)


# ------------------------------------------------------------------------------------------------ weights


def make_groups(seed: int, n: int) -> list[np.ndarray]:
    """Reward groups of sizes 1..32: binary verdicts, real-valued scores, and constant groups."""
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 4, 8, 32]
    groups = []
    for i in range(n):
        K = sizes[i % len(sizes)]
        kind = (i // len(sizes)) % 3
        if kind == 0:
            groups.append(rng.integers(0, 2, K).astype(float))
        elif kind == 1:
            groups.append(rng.normal(0, 2, K))
        else:
            groups.append(np.full(K, rng.normal()))
    return groups


WEIGHTS = {"group_centered_weight": oracle.centered, "group_standardized_weight": oracle.standardized,
           "leave_one_out_weight": oracle.leave_one_out}  # student function -> the oracle's


class Weights(CallsCheck):
    id = "D.weights"
    name = "Group weights: centred, standardized (GRPO), leave-one-out (RLOO)"
    mistakes = MISTAKES

    class Bar(ToleranceBar):
        groups: int = Field(description="reward groups (sizes 1 to 32) each weight function is called on")

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        for name, reference in WEIGHTS.items():
            for r in sorted(make_groups(ctx.seed, ctx.bar.groups), key=len):  # a group's first failure: its smallest
                if name == "leave_one_out_weight" and len(r) < 2:
                    continue
                # NaN is compared, so a 0 / 0 is named with the mistake that made it
                want = out_array(reference(r), tol, finite=False)
                calls.append(located_call(call(name, [r.copy()], want, f"{name} of a group of {len(r)}", name),
                                          d_located.group_features(r), (name, None)))
        calls.append(call("leave_one_out_weight", [np.array([1.0])],
                          {"raises": "ValueError", "message": "leave_one_out_weight of a single sample should raise "
                           "ValueError: with K = 1 there is no other sample to average"}, "leave_one_out_weight([1])",
                          "loo_k1", mistake="D.weights.loo-single-sample"))
        subjects = {name: (d_located.weights_subject(name), d_located.GROUP_FEATURES) for name in WEIGHTS}
        return {"kind": "calls", "calls": calls, "total": len(WEIGHTS) + 1,
                "passed": "all three weights match the chapter's definitions", **locate(self.id, tol, subjects),
                "findings": {"D.weights.loo-single-sample": MISTAKES["D.weights.loo-single-sample"].text}}


# ------------------------------------------------------------------------------------------------ KL penalty


KL_BETAS = (0.0, 0.1, 0.25, 1.0, 3.0)
KL_SINGLE_BETA = 1.0  # every seed's group of one sample, so the public seeds show one as any grading seed might


def kl_cases(seed: int):
    """(rewards, p, p_ref, beta): one group per beta of ``KL_BETAS``, of 2 to 8 samples, but a single sample at
    ``KL_SINGLE_BETA``."""
    rng = np.random.default_rng(seed)
    for beta in KL_BETAS:
        K = 1 if beta == KL_SINGLE_BETA else int(rng.integers(2, 9))
        yield rng.integers(0, 2, K).astype(float), rng.uniform(0.01, 1, K), rng.uniform(0.01, 1, K), beta


class KLPenalty(CallsCheck):
    id = "D.kl_penalty"
    name = "KL-to-reference penalty folded into the reward"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol = ctx.bar.tolerance
        calls = [located_call(call("kl_penalized_reward", [r, p, q, beta], out_array(oracle.kl_penalized(r, p, q, beta),
                                                                                      tol),
                                   f"kl_penalized_reward(beta={beta})", f"case {i}"),
                              d_located.kl_features(r, p, q, beta), ("kl", None))
                 for i, (r, p, q, beta) in enumerate(kl_cases(ctx.seed))]
        return {"kind": "calls", "calls": calls, "total": 5,
                "passed": "r - beta * log(p / p_ref), and beta = 0 leaves r unchanged",
                **locate(self.id, tol, {"kl": (d_located.KL_SUBJECT, d_located.KL_FEATURES)})}


# ------------------------------------------------------------------------------------------------ enumeration


def enumeration_cases(seed: int):
    """(label, theta, reward table): the chapter's case and one the student cannot have seen."""
    theta = THETA_REF + np.random.default_rng(seed).normal(0, 1, THETA_REF.shape)
    return [("the reference policy and the exact-match verifier", THETA_REF, EXACT_MATCH),
            ("a perturbed policy and the sloppy grader", theta, CONTAINS_ANSWER)]


class Enumeration(Check):
    id = "D.enumeration"
    name = "Every group enumerated: centring costs (K-1)/K of the gradient, leave-one-out is exact"

    class Bar(Bar):
        ks: list[int] = Field(description="group sizes K whose every group of responses is enumerated")
        tolerance: float = Field(description="largest gap of the expected update from its multiple of the gradient")

    def collect(self, student, ctx):
        centered, loo = student.fn("group_centered_weight"), student.fn("leave_one_out_weight")
        out = {}
        for c, (_, _, R) in enumerate(enumeration_cases(ctx.seed)):
            for K in ctx.bar.ks:
                groups = list(itertools.product(range(N_RESPONSES), repeat=K))
                for key, fn in (("centered", centered), ("loo", loo)):
                    out[f"{key}/{c}/{K}"] = [[as_array(fn(R[x, list(g)]), (K,), f"group_{key} weight")
                                              for g in groups] for x in range(N_PROMPTS)]
        return out

    def judge(self, data, ctx):
        failures, tests = [], 0
        for c, (label, theta, R) in enumerate(enumeration_cases(ctx.seed)):
            pi = policy(theta)
            g = oracle.exact_gradient(pi, R)
            for K in ctx.bar.ks:
                groups = np.array(list(itertools.product(range(N_RESPONSES), repeat=K)))
                for key, factor, what in (("centered", (K - 1) / K, f"(K-1)/K = {(K - 1) / K:.3f} of"),
                                          ("loo", 1.0, "exactly")):
                    tests += 1
                    weights = np.array(data[f"{key}/{c}/{K}"], dtype=float)
                    if weights.shape != (N_PROMPTS, len(groups), K):
                        raise Malformed(f"{key} weights for K = {K}: expected shape {(N_PROMPTS, len(groups), K)}, "
                                        f"found {weights.shape}")
                    u = oracle.expected_update(pi, groups, weights)
                    error = np.abs(u - factor * g).max()
                    if beyond(error, ctx.bar.tolerance * max(1.0, np.abs(g).max())):
                        ratio = float((u * g).sum() / (g * g).sum())
                        failures.append(f"{key} weights, K = {K}, {label}: the expected update should be {what} "
                                        f"the exact gradient; it is {ratio:.4f} of it (max |error| {error:.2e})")
        return Verdict.of(failures, tests, "the expected updates match (K-1)/K and 1 times the exact gradient",
                          findings=enumerated_findings(data, ctx) if failures else [])


def enumerated_findings(data, ctx) -> list:
    """The weight mistakes every enumerated group's weights match, for either weight function."""
    found = []
    for key, piece in (("centered", "group_centered_weight"), ("loo", "leave_one_out_weight")):
        cases, got = [], []
        for c, (_, _, R) in enumerate(enumeration_cases(ctx.seed)):
            for K in ctx.bar.ks:
                groups = list(itertools.product(range(N_RESPONSES), repeat=K))
                cases += [(R[x, list(g)],) for x in range(N_PROMPTS) for g in groups]
                got += [w for per_prompt in data[f"{key}/{c}/{K}"] for w in per_prompt]
        found += matched(of_piece(MISTAKES, piece), cases, got)
    return found


# ------------------------------------------------------------------------------------------------ clipping


REGIONS = ["at theta = theta_old", "favourable side beyond the clip", "unfavourable side beyond the clip",
           "inside the clip range"]


CLIP_CORNERS = [(1, "above"), (-1, "below"), (1, "below"), (-1, "above")]  # A's sign, rho beyond 1 + eps or 1 - eps


def clip_cases(seed: int, n: int):
    """(region, pi_x, pi_old_x, ys, A, eps): single samples in every region, then mixed groups. Single samples take,
    one corner beyond the clip after another (``CLIP_CORNERS``), the response whose ratio is largest or smallest and an
    advantage below 1 in size, until each corner holds one (a ratio inside the clip tries its corner again): a test of
    A's sign written as one of its size (A > 1) fails on every seed, not only on those whose random samples happen to
    hold a small advantage there. They draw what the others draw, so every case after them is as before."""
    rng, corners = np.random.default_rng(seed), list(CLIP_CORNERS)
    for i in range(n):
        eps = float(rng.choice([0.1, 0.2, 0.3]))
        pi_old = policy(rng.normal(0, 1, (1, N_RESPONSES)))[0]
        if i % 4 == 0:
            K = int(rng.integers(1, 9))
            yield REGIONS[0], pi_old.copy(), pi_old, rng.choice(N_RESPONSES, K, p=pi_old), rng.normal(0, 1, K), eps
            continue
        pi = policy(np.log(pi_old)[None] + rng.normal(0, 1, (1, N_RESPONSES)))[0]
        y = int(rng.integers(N_RESPONSES))
        A = float(rng.choice([-1, 1]) * rng.uniform(0.5, 2))
        if corners:
            sign, side = corners[0]
            y, A = int(np.argmax(pi / pi_old) if side == "above" else np.argmin(pi / pi_old)), sign * abs(A) / 2
        rho = pi[y] / pi_old[y]
        if corners and not 1 - eps <= rho <= 1 + eps:
            corners.pop(0)
        region = 3 if 1 - eps <= rho <= 1 + eps else (1 if (A > 0) == (rho > 1) else 2)
        yield REGIONS[region], pi, pi_old, np.array([y]), np.array([A]), eps


class GroupClippedGradient(CallsCheck):
    id = "D.clip_gradient"
    name = "Clipped surrogate gradient: plain policy gradient at theta_old, none beyond the clip"
    mistakes = MISTAKES

    class Bar(ToleranceBar):
        cases: int = Field(description="samples and groups, spread over the clip's regions")

    def spec(self, ctx) -> dict:
        calls = [located_call(call("clipped_surrogate_gradient", [pi, old, ys, A, eps],
                                   out_array(oracle.clipped_gradient(pi, old, ys, A, eps), ctx.bar.tolerance),
                                   f"clipped_surrogate_gradient {region} (eps {eps})", region),
                              d_located.clip_features(REGIONS.index(region), pi, old, ys, A, eps), ("clip", None))
                 for region, pi, old, ys, A, eps in clip_cases(ctx.seed, ctx.bar.cases)]
        return {"kind": "calls", "calls": calls, "total": len(REGIONS),
                "passed": "right in all four regions of the clipped surrogate",
                **locate(self.id, ctx.bar.tolerance, {"clip": (d_located.CLIP_SUBJECT, d_located.CLIP_FEATURES)})}
