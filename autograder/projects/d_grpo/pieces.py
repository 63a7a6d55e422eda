"""Project D's checks of single pieces, each on inputs the grader makes from its seed and judges with the oracle."""

from __future__ import annotations

import itertools

import numpy as np
from pydantic import Field

from autograder.checks import Bar, ToleranceBar
from autograder.findings import computed, of_piece
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, encode, locate, located_call, mistakes_as_values, out_array
from autograder.projects._shared.once import WrittenOnce
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from autograder.projects.d_grpo.public import located as d_located
from autograder.projects.d_grpo.public.enumeration import WEIGHTS as ENUMERATED, collect_enumeration, judge_enumeration
from rlkit.toy import CONTAINS_ANSWER, EXACT_MATCH, N_PROMPTS, N_RESPONSES, THETA_REF, policy, sloppy, verify

REWARDS = {"verify": verify, "sloppy": sloppy}


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


class Enumeration(WrittenOnce):
    id = "D.enumeration"
    name = "Every group enumerated: centring costs (K-1)/K of the gradient, leave-one-out is exact"

    class Bar(Bar):
        ks: list[int] = Field(description="group sizes K whose every group of responses is enumerated")
        tolerance: float = Field(description="largest gap of the expected update from its multiple of the gradient")

    def spec(self, ctx) -> dict:
        cases = []
        for label, theta, R in enumeration_cases(ctx.seed):
            pi = policy(theta)
            chances = {str(K): np.array([np.prod(pi[x][np.array(list(itertools.product(range(N_RESPONSES), repeat=K)))],
                                                 axis=1) for x in range(N_PROMPTS)]) for K in ctx.bar.ks}
            cases.append({"label": label, "pi": pi, "rewards": R, "gradient": oracle.exact_gradient(pi, R),
                          "chances": chances})
        return {"kind": "d_enumeration", "cases": encode(cases), "ks": list(ctx.bar.ks), "tol": ctx.bar.tolerance,
                **weighed_by_mistakes(ctx)}

    def inputs(self, spec: dict, ctx) -> dict:
        return {"cases": [{"label": case["label"], "rewards": case["rewards"]} for case in spec["cases"]],
                "ks": spec["ks"], "groups": spec["groups"]}

    def gather(self, student, inputs: dict) -> dict:
        return collect_enumeration(student, inputs)

    def decide(self, spec: dict, data):
        return judge_enumeration(spec, data)


def enumerated_groups(ctx) -> list[list[float]]:
    """The reward groups the enumeration hands the weights, each once, in the order it first meets them: a weight is
    a function of its group's rewards, so its values on these are its values on every enumerated group."""
    groups = {}
    for _, _, R in enumeration_cases(ctx.seed):
        for K in ctx.bar.ks:
            for g in itertools.product(range(N_RESPONSES), repeat=K):
                groups.update({tuple(R[x, list(g)].tolist()): None for x in range(N_PROMPTS)})
    return [list(group) for group in groups]


def weighed_by_mistakes(ctx) -> dict:
    """The known mistakes of the two weights the enumeration calls, each one's weights of ``enumerated_groups`` (a
    mistake that cannot weigh every group is left out), with their sentences and which weight each belongs to."""
    groups, outputs, of_weight = enumerated_groups(ctx), {}, {}
    for key, piece in ENUMERATED.items():
        for mistake in of_piece(MISTAKES, piece):
            weighed = [computed(mistake.variant, np.array(r)) for r in groups]
            if all(w is not None for w in weighed):
                outputs[mistake.id] = weighed
                of_weight.setdefault(key, []).append(mistake.id)
    return {"groups": groups, "mistakes_of": of_weight, **mistakes_as_values(MISTAKES, outputs)}


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
