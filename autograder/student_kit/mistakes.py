"""The catalogue of known mistakes a project keeps, which the students' checker names from the values
``findings.recorded_mistakes`` records beside a check's expected values."""

from __future__ import annotations

from importlib import import_module

from autograder.projects import PROJECTS


def catalogue_of(pid: str) -> dict:
    """Project ``pid``'s catalogue of known mistakes (``mistakes.py`` beside its checks); a project without one
    names none."""
    name = f"{PROJECTS.package(pid)}.mistakes"
    try:
        return import_module(name).MISTAKES
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return {}
