"""Project D's expected values for the students' checker: the grader's own inputs and the oracle's outputs on them."""

from __future__ import annotations

import itertools

import numpy as np

from autograder.findings import computed, of_piece
from autograder.projects.d_grpo import oracle, pieces, price, stand_ins, steps
from autograder.projects._shared.encode import (call, encode, locate, located_call, mistakes_as_values, out_array,
                                                out_float, reward, rng, weight)
from autograder.projects.d_grpo.mistakes import MISTAKES
from capstone_check.kinds import d_grpo as checker, d_located
from rlkit.toy import N_PROMPTS, N_RESPONSES, policy


def weights(ctx) -> dict:
    calls = []
    for name, (reference, _) in pieces.WEIGHTS.items():
        # smallest group first: the first failure the checker reports is the smallest failing group, as final grading's
        for r in sorted(pieces.make_groups(ctx.seed, ctx.bar.groups), key=len):
            if name == "leave_one_out_weight" and len(r) < 2:
                continue
            calls.append(located_call(call(name, [r.copy()], out_array(reference(r), ctx.bar.tolerance, finite=False),
                                           f"{name} of a group of {len(r)}", name),  # NaN is compared, so its cause
                                      d_located.group_features(r), (name, None)))  # is named
    calls.append(call("leave_one_out_weight", [np.array([1.0])],
                      {"raises": "ValueError", "message": "leave_one_out_weight of a single sample should raise "
                       "ValueError: with K = 1 there is no other sample to average"}, "leave_one_out_weight([1])",
                      "loo_k1", mistake="D.weights.loo-single-sample"))
    return {"kind": "calls", "calls": calls, "total": len(pieces.WEIGHTS) + 1,
            "passed": "all three weights match the chapter's definitions",
            **locate("D.weights", ctx.bar.tolerance, {name: (d_located.weights_subject(name), d_located.GROUP_FEATURES)
                                                      for name in pieces.WEIGHTS}),
            "findings": {"D.weights.loo-single-sample": MISTAKES["D.weights.loo-single-sample"].text}}


def kl_penalty(ctx) -> dict:
    calls = [located_call(call("kl_penalized_reward", [r, p, q, beta], out_array(oracle.kl_penalized(r, p, q, beta),
                                                                                  ctx.bar.tolerance),
                               f"kl_penalized_reward(beta={beta})", f"case {i}"),
                          d_located.kl_features(r, p, q, beta), ("kl", None))
             for i, (r, p, q, beta) in enumerate(pieces.kl_cases(ctx.seed))]
    return {"kind": "calls", "calls": calls, "total": 5,
            "passed": "r - beta * log(p / p_ref), and beta = 0 leaves r unchanged",
            **locate("D.kl_penalty", ctx.bar.tolerance, {"kl": (d_located.KL_SUBJECT, d_located.KL_FEATURES)})}


def enumeration(ctx) -> dict:
    cases = []
    for label, theta, R in pieces.enumeration_cases(ctx.seed):
        pi = policy(theta)
        chances = {str(K): np.array([np.prod(pi[x][np.array(list(itertools.product(range(N_RESPONSES), repeat=K)))],
                                             axis=1) for x in range(N_PROMPTS)]) for K in ctx.bar.ks}
        cases.append({"label": label, "pi": pi, "rewards": R, "gradient": oracle.exact_gradient(pi, R),
                      "chances": chances})
    return {"kind": "d_enumeration", "cases": encode(cases), "ks": list(ctx.bar.ks), "tol": ctx.bar.tolerance,
            **weighed_by_mistakes(ctx)}


ENUMERATED = {"centered": "group_centered_weight", "loo": "leave_one_out_weight"}  # the checker's key -> the piece


def enumerated_groups(ctx) -> list[list[float]]:
    """The reward groups the enumeration hands the weights, each once, in the order it first meets them: a weight is
    a function of its group's rewards, so its values on these are its values on every enumerated group."""
    groups = {}
    for _, _, R in pieces.enumeration_cases(ctx.seed):
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


def clip_gradient(ctx) -> dict:
    calls = [located_call(call("clipped_surrogate_gradient", [pi, old, ys, A, eps],
                               out_array(oracle.clipped_gradient(pi, old, ys, A, eps), ctx.bar.tolerance),
                               f"clipped_surrogate_gradient {region} (eps {eps})", region),
                          d_located.clip_features(pieces.REGIONS.index(region), pi, old, ys, A, eps), ("clip", None))
             for region, pi, old, ys, A, eps in pieces.clip_cases(ctx.seed, ctx.bar.cases)]
    return {"kind": "calls", "calls": calls, "total": len(pieces.REGIONS),
            "passed": "right in all four regions of the clipped surrogate",
            **locate("D.clip_gradient", ctx.bar.tolerance, {"clip": (d_located.CLIP_SUBJECT, d_located.CLIP_FEATURES)})}


def grpo_step(ctx) -> dict:
    calls = []
    for i, (case, theta) in enumerate(zip(steps.STEP_CASES, steps.step_inputs(ctx.seed))):
        K, reward_name, beta, epochs, eps, lr, weight_name = case
        kwargs = {"beta": beta, "lr": lr, "epochs": epochs, "eps": eps}
        want = steps.reference_step(ctx.seed, i, theta, steps.step_kwargs(case))
        entry = call("grpo_step", [theta, K, reward(reward_name), rng(ctx.seed + i)],
                     out_array(want, ctx.bar.tolerance), f"grpo_step({steps.setting(case)})", f"case {i}", keep=[0])
        entry["kwargs"] = {**kwargs, **({"weight": weight(weight_name)} if weight_name else {})}
        calls.append(located_call(entry, d_located.step_features(case), ("step", None), base=theta))
    through = {"check": "D.grpo_step", "fn": "grpo_step", "module": "grpo", "noun": steps.STEP_NOUN,
               "tol": ctx.bar.tolerance, "records": encode(steps.step_records(ctx.seed)),
               "parameters": stand_ins.PARAMETERS}
    return {"kind": "calls", "calls": calls, "total": len(steps.STEP_CASES), "through": through,
            "passed": "matches the chapter's step, its clipped multi-epoch form, any weight and beta > 0",
            **locate("D.grpo_step", ctx.bar.tolerance, {"step": (d_located.STEP_SUBJECT, d_located.STEP_FEATURES)},
                     raising=True)}


def price_exploit(ctx) -> dict:
    low, high = ctx.bar.threshold_range
    calls = []
    for row, ((logits, rewards, exploit), kind) in enumerate(zip(price.price_cases(ctx.seed), price.price_kinds())):
        want = oracle.price_exploit(logits, rewards, exploit)
        entry = call("price_exploit", [logits, rewards, exploit],
                     out_float(want, ctx.bar.tolerance, "exact_or_close", finite=True),
                     f"price_exploit {price.price_row(row)}", "rows")
        entry = located_call(entry, d_located.price_features(kind, want), ("price", None))
        if row in (2, 3):  # 8*8 and 9*9: only the KL penalty stands in the hedge's way
            entry["range"] = {"bounds": [low, high], "group": f"toy {row}",
                              "message": f"on prompt {row} of the toy the hedge should stop paying near beta = 1/4"}
        calls.append(entry)
    return {"kind": "calls", "calls": calls, "total": 3,
            "passed": "right on the toy and on unseen rows, binding floors included",
            **locate("D.price_exploit", ctx.bar.tolerance, {"price": (d_located.PRICE_SUBJECT,
                                                                      d_located.PRICE_FEATURES)}, raising=True)}


def chapter_tables(ctx) -> dict:
    bar = ctx.bar.model_dump()
    bar["k_table"] = [[int(k), float(v)] for k, v in ctx.bar.k_table.items()]
    bar["beta_table"] = [[float(b), list(v)] for b, v in ctx.bar.beta_table.items()]
    return {"kind": "d_chapter_tables", "bar": bar}


def sweep(kind: str):
    return lambda ctx: {"kind": kind, "bar": ctx.bar.model_dump(), "seeds": list(ctx.seeds)}


# the checker's function that runs each kind of check SPECS makes (a "calls" check runs the student's functions)
KINDS = {"d_enumeration": checker.enumeration, "d_chapter_tables": checker.chapter_tables,
         "d_k_sweep": checker.k_sweep, "d_beta_sweep": checker.beta_sweep}

SPECS = {"D.weights": weights, "D.kl_penalty": kl_penalty, "D.enumeration": enumeration,
         "D.clip_gradient": clip_gradient, "D.grpo_step": grpo_step, "D.price_exploit": price_exploit,
         "D.chapter_tables": chapter_tables, "D.k_sweep": sweep("d_k_sweep"), "D.beta_sweep": sweep("d_beta_sweep")}
