"""The registry of capstone projects: id -> Project (folder, modules, checks, plots)."""

from autograder.projects.d_grpo import PROJECT as D

PROJECTS = {project.id: project for project in (D,)}
