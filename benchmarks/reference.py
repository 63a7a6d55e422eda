"""The reference solution's modules, loaded as the grader loads a student's folder (``capstone_check.student``), so a
benchmark can call the reference's functions directly."""

from __future__ import annotations

from types import ModuleType

from autograder import paths
from capstone_check.student import Student


def reference_module(folder: str, name: str, *others: str) -> ModuleType:
    """Module ``name`` of the reference's project folder ``folder``; ``others`` are the folder's modules it imports
    (B's ``details`` imports ``ppo``), loaded first."""
    return Student(paths.SOLUTIONS / folder, (*others, name)).module(name)
