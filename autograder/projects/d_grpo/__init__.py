"""Project D: GRPO from REINFORCE on the four-prompt verifier toy (D2L §15.7.2–15.7.4, §15.7.6 D)."""

from autograder.project import Project
from autograder.projects.d_grpo.pieces import GroupClippedGradient, Enumeration, KLPenalty, Weights
from autograder.projects.d_grpo.price import PriceExploit
from autograder.projects.d_grpo.steps import GrpoStep
from autograder.projects.d_grpo.plots import plots
from autograder.projects.d_grpo.sweeps import BetaSweep, ChapterTables, KSweep

PROJECT = Project.of(
    "D", "GRPO from REINFORCE, in two lines", "D_grpo", ("grpo",),
    [Weights, KLPenalty, Enumeration, GroupClippedGradient, GrpoStep, PriceExploit, ChapterTables, KSweep, BetaSweep],
    plots=plots,
)
