"""Whether a whole step departs only through one of the pieces it calls, said in one statement: the student's step is
run again with that piece replaced by a stand-in that gives the expected outputs, and when it then gives the expected
output on every case, the row says so ("your <step> departs only through your `<piece>`").

The stand-in holds no reference code (none runs where student code does): it returns the outputs the reference's piece
gave on the calls a right step makes on the same cases, recorded by the grader (and, for the students' checker, at
release), and fails on any other call. The records would give a graded step away, so they are made for the public
seeds only. The statement names a piece, never a value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FunctionType, ModuleType

import numpy as np

from capstone_check.located import departing
from capstone_check.values import decode


class NotRecorded(Exception):
    """A call of the stand-in that no right step makes: the statement cannot be made."""


@contextmanager
def in_place_of(module: ModuleType, piece: str, stand_in: Callable) -> Iterator[None]:
    """``module`` with ``piece`` bound to ``stand_in``, as a global and as any function's default argument (a step's
    ``weight=<piece>``), restored afterwards."""
    original = getattr(module, piece)
    defaulted = [(f, f.__defaults__) for f in vars(module).values()
                 if isinstance(f, FunctionType) and f.__defaults__ and any(d is original for d in f.__defaults__)]
    setattr(module, piece, stand_in)
    for f, defaults in defaulted:
        f.__defaults__ = tuple(stand_in if d is original else d for d in defaults)
    try:
        yield
    finally:
        setattr(module, piece, original)
        for f, defaults in defaulted:
            f.__defaults__ = defaults


def replaying(calls: Sequence[tuple[Sequence, object]]) -> Callable:
    """A stand-in that returns the recorded output of the recorded call whose arguments are these (numbers within
    1e-9), and raises ``NotRecorded`` on any other call."""
    def stand_in(*args, **kwargs):
        args = (*args, *kwargs.values())  # named as the reference names them, in its order
        for recorded, out in calls:
            if len(recorded) == len(args) and all(_same(a, r) for a, r in zip(args, recorded)):
                return np.array(out, dtype=float, copy=True)
        raise NotRecorded
    return stand_in


def _same(a, b) -> bool:
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 1e-9 * np.maximum(1, np.abs(b))))


def numbers(value) -> np.ndarray:
    """An output as one row of numbers: a pair's parts (an objective and its gradient) one after the other."""
    parts = value if isinstance(value, (tuple, list)) else [value]
    return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in parts])


def _expected(out: dict) -> np.ndarray:
    """A calls spec's expected output (``capstone_check.calls``) as ``numbers`` gives the student's."""
    if "pair" in out:
        return np.concatenate([_expected(part) for part in out["pair"]])
    return np.ravel(np.asarray(decode(out["array"] if "array" in out else out["float"]), dtype=float))


def rerun(module: ModuleType, piece: str, stand_in: Callable, run: Callable[[], list]) -> list | None:
    """``run()`` with ``piece`` replaced in ``module``, or None when the module has no such piece or anything fails
    (the student's code raising, a call the stand-in does not know)."""
    if not isinstance(getattr(module, piece, None), FunctionType):
        return None
    try:
        with in_place_of(module, piece, stand_in):
            return run()
    except Exception:  # noqa: BLE001 - a re-run is evidence for a statement, never graded: failing, it says nothing
        return None


def reran(module: ModuleType, records: dict, run: Callable[[], list]) -> dict:
    """Per piece of ``records`` (piece -> its recorded calls), ``run()``'s outputs with that piece replaced by its
    recorded stand-in, or None where that fails."""
    return {piece: rerun(module, piece, replaying(calls), run) for piece, calls in records.items()
            if isinstance(piece, str) and isinstance(calls, list)}


def read_records(path: str | None) -> dict:
    """The records a check's ``prepare`` wrote (piece -> its calls), or {} when there are none or the file cannot be
    read as records (student code runs before it is read, and may have changed it: the statement is then not made)."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as records:
            stand_ins = decode(json.load(records))
    except Exception:  # noqa: BLE001 - a missing or mangled file: nothing to re-run, never the check's failure
        return {}
    return stand_ins if isinstance(stand_ins, dict) else {}


def statement(check: str, composite: str, piece: str, noun: str) -> dict:
    return {"id": f"{check}.through-{piece}",
            "text": f"your {composite} departs only through your `{piece}`: with the expected `{piece}` in its place "
                    f"it gives the expected {noun}"}


def through(check: str, composite: str, noun: str, pieces: Sequence[str], reruns, wants: Sequence,
            tolerance: float) -> list[dict]:
    """The statement for the first of ``pieces`` whose re-run (``reruns``: piece -> its outputs, as a child sent them,
    so untrusted: only the named pieces are read) gives every one of ``wants`` within ``tolerance``; [] when none
    does."""
    if not isinstance(reruns, dict):
        return []
    for piece in pieces:
        outs = reruns.get(piece)
        if isinstance(outs, list) and len(outs) == len(wants) and all(
                (apart := departing(got, want, tolerance)) is not None and not apart.any()
                for got, want in zip(outs, wants)):
            return [statement(check, composite, piece, noun)]
    return []


def through_calls(student, spec: dict) -> list[dict]:
    """In the students' checker: the statement for a composite's located calls (``spec["calls"]`` of
    ``spec["through"]``'s function) with each recorded piece in turn replaced by its stand-in, as final grading says
    it."""
    if "through" not in spec:
        return []
    about = spec["through"]
    module = student.module(about["module"])
    calls = [call for call in spec["calls"] if call["fn"] == about["fn"] and call.get("locate")]

    def run():
        return [numbers(getattr(module, about["fn"])(*decode(call["args"]), **decode(call.get("kwargs", {}))))
                for call in calls]

    return through(about["check"], about["fn"], about["noun"], list(about["records"]),
                   reran(module, decode(about["records"]), run), [_expected(call["out"]) for call in calls],
                   about["tol"])
