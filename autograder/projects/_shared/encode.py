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


def locate(check: str, tol: float, subjects: dict[str, tuple[str, dict]], raising: bool = False) -> dict:
    """A calls spec's ``locate``: what the checker needs to say where an output departs, as final grading says it
    (``capstone_check.located``): per subject key, the subject and its features (id -> where). With ``raising``
    (a check whose grader says on which cases a piece raised: ``located_on_error``), a located call that raises lets
    the others run, and the row is led by the feature of the calls that raised."""
    return {"locate": {"check": check, "tol": tol, "raising": raising, "subjects": {
        key: {"subject": subject, "features": features} for key, (subject, features) in subjects.items()}}}


def located_call(entry: dict, masks: dict, *parts: tuple[str, str | int | None], base=None) -> dict:
    """``entry`` (a ``call``) whose output, or each part of it (a pair's index, a dict's key; None for the whole),
    joins the statement of a subject key of the spec's ``locate``, with the case's feature masks; with ``base``, the
    output minus it (a step's change rather than its new parameters)."""
    return {**entry, "masks": encode(masks), "locate": [[key, part] for key, part in parts],
            **({"base": encode(base)} if base is not None else {})}


def mistakes_as_values(catalogue: dict, outputs: dict) -> dict:
    """What the students' checker needs to name known mistakes on a check whose outputs are not single calls:
    ``outputs`` maps a mistake's id to what it gives on the check's public inputs, kept as flat numbers
    (``capstone_check.calls.flat``) beside the catalogue's sentence, never the variant's code. A check that also
    names mistakes by a rule of its own lists their sentences in ``findings`` with no recorded values."""
    from capstone_check.calls import flat

    return {"mistakes": {mid: flat(value) for mid, value in outputs.items()},
            "findings": {mid: catalogue[mid].text for mid in outputs}}


def mistakes_by_part(catalogue: dict, outputs: dict) -> dict:
    """``mistakes_as_values`` for mistakes each shown by one part of a check's output: ``outputs`` maps a mistake's id
    to (the keys that lead to that part of the output, what the part is under the mistake); the checker compares
    that part alone (``capstone_check.calls.recognised_parts``)."""
    return {**mistakes_as_values(catalogue, {mid: value for mid, (_, value) in outputs.items()}),
            "parts": {mid: list(keys) for mid, (keys, _) in outputs.items()}}
