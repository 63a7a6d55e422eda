"""Run one check's ``collect`` in a child process with wall-time, memory and output limits."""

from autograder.sandbox.runner import Outcome, run_check

__all__ = ["Outcome", "run_check"]
