"""Whether a whole step departs only through one of the pieces it calls, said in one statement: the student's step is
run again with that piece replaced by a stand-in that gives the expected outputs, and when it then gives the expected
output on every case, the row says so ("your <step> departs only through your `<piece>`").

The stand-in holds no reference code (none runs where student code does): it returns the outputs the reference's piece
gave on the calls a right step makes on the same cases, recorded by the grader (and, for the students' checker, at
release), and fails on any other call. The records would give a graded step away, so they are made for the public
seeds only. The statement names a piece, never a value.

When no one piece explains it, the step is run once more with every piece replaced at once: if it still departs, or
hands a stand-in inputs far from every recorded call, the fault is in its own lines, and the row says so (naming the
piece it passed such inputs to, and the argument when only one departs).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
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


def _expected(out: dict) -> np.ndarray:
    """A calls spec's expected output (``capstone_check.calls``) as ``numbers`` gives the student's."""
    if "pair" in out:
        return np.concatenate([_expected(part) for part in out["pair"]])
    return np.ravel(np.asarray(decode(out["array"] if "array" in out else out["float"]), dtype=float))


def _signature(module: ModuleType, piece: str) -> inspect.Signature | None:
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
    return {piece: rerun(module, piece, replaying(calls, _signature(module, piece)), run)
            for piece, calls in records.items() if isinstance(piece, str) and isinstance(calls, list)}


EVERY = "*"  # the key of the re-runs with every recorded piece replaced at once


def reran_whole(module: ModuleType, records: dict, runs: Sequence[Callable[[], object]]) -> list:
    """Each of ``runs`` (one per case) with every piece of ``records`` replaced at once by its stand-in: the case's
    output; ``{"piece", "argument"}`` when the composite first called a stand-in far from every recorded call (the
    argument named when only one departs); None when it cannot say (the student's code raising, a call near a recorded
    one, a piece missing, or one of the student's own pieces running all the same, reached by another name)."""
    pieces = {piece: calls for piece, calls in records.items() if isinstance(piece, str) and isinstance(calls, list)}
    if not pieces or not all(isinstance(getattr(module, piece, None), FunctionType) for piece in pieces):
        return [None] * len(runs)
    own = {getattr(module, piece).__code__ for piece in pieces}
    outcomes = []
    for run in runs:
        seen: list[Exception] = []
        stand_ins = {piece: replaying(calls, _signature(module, piece), piece, seen) for piece, calls in pieces.items()}
        try:
            with _all_in_place(module, stand_ins), _running(own) as ran:
                out = numbers(run())
        except Exception:  # noqa: BLE001 - as in ``rerun``: evidence only; what a stand-in saw is read below
            out = None
        first = seen[0] if seen else None
        outcomes.append({"piece": first.piece, "argument": first.argument} if isinstance(first, WrongInputs)
                        else out if first is None and not ran else None)
    return outcomes


@contextlib.contextmanager
def _running(codes: set) -> Iterator[list]:
    """Which of ``codes`` run inside: a piece the composite reaches by an alias or from a module of its own is the
    student's piece, not the stand-in, and its output cannot be said to come from the composite's own lines."""
    ran: list = []
    previous = sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            ran.append(frame.f_code)

    sys.setprofile(profile)
    try:
        yield ran
    finally:
        sys.setprofile(previous)


@contextlib.contextmanager
def _all_in_place(module: ModuleType, stand_ins: dict[str, Callable]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for piece, stand_in in stand_ins.items():
            stack.enter_context(in_place_of(module, piece, stand_in))
        yield


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


def own_lines(check: str, composite: str, noun: str, outcomes, wants: Sequence, tolerance: float,
              parameters: dict[str, Sequence[str]]) -> list[dict]:
    """What the re-runs with every piece replaced at once (``outcomes``, one per case, as a child sent them, so
    untrusted: only the composite's pieces and their ``parameters`` are named) show of the composite's own lines: a
    case whose output still departs ("own-lines"), else the first call far from every recorded one ("passes-<piece>");
    [] when neither shows."""
    if not isinstance(outcomes, list) or len(outcomes) != len(wants):
        return []
    for out, want in zip(outcomes, wants):
        if isinstance(out, list | np.ndarray) and (apart := _flat_departing(out, want, tolerance)) is not None \
                and apart.any():
            return [{"id": f"{check}.own-lines", "text": f"your {composite}'s own lines depart: with the expected "
                                                       f"pieces in place of its own, it still returns other {noun}"}]
    for out in outcomes:
        piece, argument = (out.get("piece"), out.get("argument")) if isinstance(out, dict) else (None, None)
        if isinstance(piece, str) and piece in parameters:
            named = argument if isinstance(argument, str) and argument in parameters[piece] else None  # not the stub's
            what = f"a{'n' * (named[:1].lower() in 'aeiou')} `{named}`" if named else "inputs"
            return [{"id": f"{check}.passes-{piece}", "text": f"your {composite}'s own lines depart: with the "
                                                            f"expected pieces, it passes `{piece}` {what} no right "
                                                            f"{composite} passes"}]
    return []


def is_own(statement: dict) -> bool:
    """Whether ``statement`` speaks of the composite's own lines (``own_lines``), not of a piece it departs through."""
    return statement["id"].endswith(".own-lines") or ".passes-" in statement["id"]


def led(through_said: list[dict], located_said: list[dict], named: bool) -> list[dict]:
    """A row's statements in the order it says them: the piece it departs through, where its output departs, then what
    shows its own lines depart, left out when the row names a known mistake (whose sentence says more)."""
    return [s for s in through_said if not is_own(s)] + located_said + (
        [] if named else [s for s in through_said if is_own(s)])


def _flat_departing(got, want, tolerance: float) -> np.ndarray | None:
    try:
        got = np.ravel(np.asarray(got, dtype=float))
    except (TypeError, ValueError):
        return None
    return departing(got, np.ravel(np.asarray(want, dtype=float)), tolerance)


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

    records, wants = decode(about["records"]), [_expected(call["out"]) for call in calls]
    said = through(about["check"], about["fn"], about["noun"], list(records), reran(module, records, run), wants,
                   about["tol"])
    if said or "parameters" not in about:
        return said
    runs = [lambda call=call: getattr(module, about["fn"])(*decode(call["args"]), **decode(call.get("kwargs", {})))
            for call in calls]
    return own_lines(about["check"], about["fn"], about["noun"], reran_whole(module, records, runs), wants,
                     about["tol"], about["parameters"])
