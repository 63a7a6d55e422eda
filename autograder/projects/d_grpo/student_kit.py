"""What the students' checker runs of project D: each check's own spec, recorded at release on the public seeds, and
the checker's function that runs each kind."""

from __future__ import annotations

from autograder.projects.d_grpo import pieces, price, steps, sweeps
from autograder.projects.d_grpo.public import enumeration as checker
from autograder.projects.d_grpo.public import sweeps as d_sweeps

# the checker's function that runs each kind of check SPECS makes (a "calls" check runs the student's functions)
KINDS = {"d_enumeration": checker.enumeration, "d_chapter_tables": d_sweeps.chapter_tables,
         "d_k_sweep": d_sweeps.k_sweep, "d_beta_sweep": d_sweeps.beta_sweep}

SPECS = {"D.weights": pieces.Weights().spec, "D.kl_penalty": pieces.KLPenalty().spec,
         "D.enumeration": pieces.Enumeration().spec,
         "D.clip_gradient": pieces.GroupClippedGradient().spec, "D.grpo_step": steps.GrpoStep().spec,
         "D.price_exploit": price.PriceExploit().spec,
         "D.chapter_tables": sweeps.ChapterTables().spec, "D.k_sweep": sweeps.KSweep().spec,
         "D.beta_sweep": sweeps.BetaSweep().spec}
