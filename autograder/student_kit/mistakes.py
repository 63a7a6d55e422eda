"""The known mistakes the students' checker names: each catalogued mistake's outputs on a check's recorded inputs,
kept beside the expected values as numbers (never the variant's code), with the catalogue's sentence."""

from __future__ import annotations

from importlib import import_module

from autograder.findings import computed, of_piece
from autograder.projects import PROJECTS
from capstone_check.calls import flat
from capstone_check.values import decode


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


def recorded_mistakes(spec: dict, mistakes: dict) -> dict:
    """``spec`` (a check of calls) with, on each call, the values each known mistake of its piece gives on its
    inputs, and the mistakes' sentences. A mistake is recorded only where it can be computed on every call of its
    piece."""
    recorded = {}
    for piece in {c["fn"] for c in spec["calls"] if "raises" not in c["out"]}:
        calls = [c for c in spec["calls"] if c["fn"] == piece and "raises" not in c["out"]]
        for mistake in of_piece(mistakes, piece):
            values = [computed(mistake.variant, *decode(c["args"]), **decode(c.get("kwargs", {}))) for c in calls]
            if any(v is None for v in values):
                continue
            for c, value in zip(calls, values):
                c.setdefault("mistakes", {})[mistake.id] = flat(value)
            recorded[mistake.id] = mistake.text
    return {**spec, "findings": {**spec.get("findings", {}), **recorded}} if recorded else spec
