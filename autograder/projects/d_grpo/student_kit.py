"""Project D's expected values for the students' checker: the grader's own inputs and the oracle's outputs on them."""

from __future__ import annotations



from autograder.projects.d_grpo import pieces, price, steps
from capstone_check.kinds import d_grpo as checker











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

SPECS = {"D.weights": pieces.Weights().spec, "D.kl_penalty": pieces.KLPenalty().spec,
         "D.enumeration": pieces.Enumeration().spec,
         "D.clip_gradient": pieces.GroupClippedGradient().spec, "D.grpo_step": steps.GrpoStep().spec,
         "D.price_exploit": price.PriceExploit().spec,
         "D.chapter_tables": chapter_tables, "D.k_sweep": sweep("d_k_sweep"), "D.beta_sweep": sweep("d_beta_sweep")}
