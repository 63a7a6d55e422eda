"""Project D's expected values for the students' checker: the grader's own inputs and the oracle's outputs on them."""

from __future__ import annotations

import itertools

import numpy as np

from autograder.findings import computed, of_piece
from autograder.projects.d_grpo import oracle, pieces, price, steps
from autograder.projects._shared.encode import encode, mistakes_as_values
from autograder.projects.d_grpo.mistakes import MISTAKES
from capstone_check.kinds import d_grpo as checker
from rlkit.toy import N_PROMPTS, N_RESPONSES, policy








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

SPECS = {"D.weights": pieces.Weights().spec, "D.kl_penalty": pieces.KLPenalty().spec, "D.enumeration": enumeration,
         "D.clip_gradient": pieces.GroupClippedGradient().spec, "D.grpo_step": steps.GrpoStep().spec,
         "D.price_exploit": price.PriceExploit().spec,
         "D.chapter_tables": chapter_tables, "D.k_sweep": sweep("d_k_sweep"), "D.beta_sweep": sweep("d_beta_sweep")}
