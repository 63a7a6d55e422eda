"""The registry of capstone projects: id -> Project (folder, modules, checks, plots)."""

from autograder.projects.a_ppo import PROJECT as A
from autograder.projects.b_ablations import PROJECT as B
from autograder.projects.c_diagnosis import PROJECT as C
from autograder.projects.d_grpo import PROJECT as D

PROJECTS = {project.id: project for project in (A, B, C, D)}
