"""Values as the students' checker reads them (``capstone_check.values.decode``): JSON with tags for arrays, tuples
and the few objects the checks hand to student code."""

from __future__ import annotations

import dataclasses

import numpy as np


def encode(value):
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist(), "dtype": str(value.dtype), "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if dataclasses.is_dataclass(value) and type(value).__name__ == "Segment":
        return {"__segment__": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot put {type(value).__name__} into the students' expected values")


def rng(seed: int) -> dict:
    return {"__rng__": int(seed)}


def reward(name: str) -> dict:
    return {"__reward__": name}


def weight(name: str) -> dict:
    return {"__weight__": name}


def out_array(want, tol: float, compare: str = "close", finite: bool = True) -> dict:
    want = np.asarray(want, dtype=float)
    return {"array": encode(want), "shape": list(want.shape), "compare": compare, "tol": tol, "finite": finite}


def out_float(want, tol: float, compare: str = "close", finite: bool = True) -> dict:
    return {"float": float(want), "compare": compare, "tol": tol, "finite": finite}


def call(fn: str, args: list, out: dict, what: str, group: str, module: str | None = None, **extra) -> dict:
    return {"fn": fn, "module": module, "args": encode(list(args)), "out": out, "what": what, "group": group,
            **extra}


def flat(value) -> list[float]:
    """A piece's output as one list of numbers, whatever its form (a number, an array, a pair, a list): how a
    recorded mistake's value is kept and how the checker compares the student's output with it."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [x for part in value for x in flat(part)]
    return [float(x) for x in np.ravel(np.asarray(value, dtype=float))]


def recorded_mistakes(spec: dict, mistakes: dict) -> dict:
    """``spec`` (a check of calls) with, on each call, the values each known mistake of its piece gives on its
    inputs, and the mistakes' sentences: values, never the variants' code. A mistake is recorded only where it can
    be computed on every call of its piece."""
    from capstone_check.values import decode
    from autograder.findings import computed, of_piece

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
