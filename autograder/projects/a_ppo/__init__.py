"""Project A: PPO from its pieces on CartPole-v1 (D2L §15.2, §15.7.6 A)."""

from autograder.project import Project
from autograder.projects.a_ppo.clip_gradient import ClippedSurrogateGradient
from autograder.projects.a_ppo.pieces import GAE, Batch, ValueEntropy
from autograder.projects.a_ppo.ratio import Ratio
from autograder.projects.a_ppo.update import Update
from autograder.projects.a_ppo.plots import plots
from autograder.projects.a_ppo.training import Bar450

PROJECT = Project.of("A", "PPO from the pieces, on CartPole", "A_ppo", ("ppo",),
                     [GAE, Batch, Ratio, ClippedSurrogateGradient, ValueEntropy, Update, Bar450], plots=plots)
