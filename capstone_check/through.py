"""Whether a whole step departs only through one of the pieces it calls, said in one statement: the student's step is
run again with that piece replaced by a stand-in that gives the expected outputs, and when it then gives the expected
output on every case, the row says so ("your <step> departs only through your `<piece>`").

The stand-in holds no reference code (none runs where student code does): it returns the outputs the reference's piece
gave on the calls a right step makes on the same cases, recorded by the grader (and, for the students' checker, at
release), and fails on any other call. The records would give a graded step away, so they are made for the public
seeds only. The statement names a piece, never a value.

``capstone_check.own_lines`` runs the step with every piece replaced at once, by the same stand-ins.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from types import FunctionType, ModuleType

import numpy as np

from capstone_check.located import departing
from capstone_check.values import decode


class NotRecorded(Exception):
    """A call of the stand-in that no right step makes: the statement cannot be made."""


@contextlib.contextmanager
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


class WrongInputs(Exception):
    """A call of a stand-in far from every call a right composite makes: the composite's own lines handed it."""

    def __init__(self, piece: str, argument: str | None):
        super().__init__(piece, argument)
        self.piece, self.argument = piece, argument


def _arguments(signature: inspect.Signature | None, args: tuple, kwargs: dict) -> tuple | None:
    """The call's arguments in the order of ``signature`` (the student's piece's, defaults filled in), or in the order
    given without one; None when they do not fit it."""
    if signature is None:
        return (*args, *kwargs.values())
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def replaying(calls: Sequence[tuple[Sequence, object]], signature: inspect.Signature | None = None,
              piece: str | None = None, seen: list | None = None) -> Callable:
    """A stand-in that returns the recorded output of the recorded call whose arguments are these (numbers within
    1e-9; bound by name with the piece's ``signature``), and raises ``NotRecorded`` on any other call. With ``seen``,
    it also appends what it raised there (student code may catch it): ``WrongInputs`` in place of ``NotRecorded`` when
    no recorded call is within 1e-6, naming the one argument that departs if only one does."""
    def stand_in(*args, **kwargs):
        got = _arguments(signature, args, kwargs)
        for recorded, out in calls if got is not None else ():
            if _matching(got, recorded, 1e-9):
                return np.array(out, dtype=float, copy=True)
        near = got is None or any(_matching(got, recorded, 1e-6) for recorded, _ in calls)
        problem = (NotRecorded() if seen is None or near or signature is None
                   else WrongInputs(piece, _odd_one(got, calls, signature)))
        if seen is not None:
            seen.append(problem)
        raise problem
    return stand_in


def _matching(args: Sequence, recorded: Sequence, tolerance: float) -> bool:
    return len(recorded) == len(args) and all(_same(a, r, tolerance) for a, r in zip(args, recorded))


def _odd_one(args: Sequence, calls: Sequence, signature: inspect.Signature | None) -> str | None:
    """The name of the one argument in which the call departs from a recorded one, the others all within 1e-6, when
    every such recorded call points at the same one; None otherwise."""
    if signature is None:
        return None
    odd = {tuple(i for i, (a, r) in enumerate(zip(args, recorded)) if not _same(a, r, 1e-6))
           for recorded, _ in calls if len(recorded) == len(args)}
    single = {apart[0] for apart in odd if len(apart) == 1}
    return list(signature.parameters)[single.pop()] if len(single) == 1 else None


def _same(a, b, tolerance: float = 1e-9) -> bool:
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance * np.maximum(1, np.abs(b))))


def numbers(value) -> np.ndarray:
    """An output as one row of numbers: a pair's parts (an objective and its gradient) one after the other."""
    parts = value if isinstance(value, (tuple, list)) else [value]
    return np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in parts])


def expected_numbers(out: dict) -> np.ndarray:
    """A calls spec's expected output (``capstone_check.calls``) as ``numbers`` gives the student's."""
    if "pair" in out:
        return np.concatenate([expected_numbers(part) for part in out["pair"]])
    return np.ravel(np.asarray(decode(out["array"] if "array" in out else out["float"]), dtype=float))


def signature_of(module: ModuleType, piece: str) -> inspect.Signature | None:
    """The piece's signature, or None when it has none or takes ``*args`` or ``**kwargs`` (a call then cannot be
    bound by name, and is never said to pass wrong inputs)."""
    try:
        signature = inspect.signature(getattr(module, piece))
    except (TypeError, ValueError):
        return None
    variable = {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}
    return None if any(p.kind in variable for p in signature.parameters.values()) else signature


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
    return {piece: rerun(module, piece, replaying(calls, signature_of(module, piece)), run)
            for piece, calls in records.items() if isinstance(piece, str) and isinstance(calls, list)}


def statement(check: str, composite: str, piece: str, noun: str) -> dict:
    return {"id": f"{check}.through-{piece}",
            "text": f"your {composite} differs only through your `{piece}`: with the expected `{piece}` in its place "
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
