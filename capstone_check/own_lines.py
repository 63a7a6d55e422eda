"""Whether a composite departs in its own lines, said in one statement: when no one piece explains a failing row
(``capstone_check.through``), the student's composite runs once more with every piece it calls replaced at once by its
stand-in. If it still departs, or hands a stand-in inputs far from every call a right composite makes, the fault is in
its own lines, and the row says so, naming the piece it passed such inputs to, and the argument when only one
departs. Like the through statement, it names pieces and arguments, never a value.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from types import FunctionType, ModuleType

import numpy as np

from capstone_check.located import departing
from capstone_check.through import (WrongInputs, expected_numbers, in_place_of, numbers, reran, replaying,
                                    signature_of, through)
from capstone_check.values import decode

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
        stand_ins = {piece: replaying(calls, signature_of(module, piece), piece, seen)
                     for piece, calls in pieces.items()}
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
            said = f"your {composite} itself differs: with the expected pieces in place of yours, it still "
            return [{"id": f"{check}.own-lines", "text": f"{said}returns other {noun}"}]
    for out in outcomes:
        piece, argument = (out.get("piece"), out.get("argument")) if isinstance(out, dict) else (None, None)
        if isinstance(piece, str) and piece in parameters:
            named = argument if isinstance(argument, str) and argument in parameters[piece] else None  # not the stub's
            what = f"a{'n' * (named[:1].lower() in 'aeiou')} `{named}`" if named else "inputs"
            return [{"id": f"{check}.passes-{piece}", "text": f"your {composite} itself differs: with the "
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


def collect_through(student, spec: dict) -> dict:
    """In the process that runs the student's code: the composite's outputs on its located calls (``spec["calls"]`` of
    ``spec["through"]``'s function) with each recorded piece in turn replaced by its stand-in (``reran``) and, where
    the spec names the pieces' parameters, with every piece at once (under ``EVERY``: ``reran_whole``); {} where the
    spec holds no records (final grading's grading seeds, whose records would give the composite away)."""
    about = spec.get("through")
    if not about or "records" not in about:
        return {}
    module = student.module(about["module"])
    calls = [call for call in spec["calls"] if call["fn"] == about["fn"] and call.get("locate")]
    runs = [lambda call=call: getattr(module, about["fn"])(*decode(call["args"]), **decode(call.get("kwargs", {})))
            for call in calls]
    records = decode(about["records"])
    reruns = reran(module, records, lambda: [numbers(run()) for run in runs])
    return {**reruns, EVERY: reran_whole(module, records, runs)} if "parameters" in about else reruns


def through_said(spec: dict, reruns) -> list[dict]:
    """The statement the re-runs show (``reruns``, as ``collect_through`` gave them: untrusted where another process
    sent them), against the spec's expected outputs: the piece the composite departs only through, else what shows
    its own lines depart; [] where neither shows."""
    about = spec.get("through")
    if not about or not isinstance(reruns, dict) or not reruns:
        return []
    calls = [call for call in spec["calls"] if call["fn"] == about["fn"] and call.get("locate")]
    pieces, wants = list(decode(about["records"])), [expected_numbers(call["out"]) for call in calls]
    said = through(about["check"], about["fn"], about["noun"], pieces, reruns, wants, about["tol"])
    if said or "parameters" not in about:
        return said
    return own_lines(about["check"], about["fn"], about["noun"], reruns.get(EVERY), wants, about["tol"],
                     about["parameters"])


def through_calls(student, spec: dict) -> list[dict]:
    """In the students' checker: the statement for a composite's located calls, re-run and judged in one process."""
    return through_said(spec, collect_through(student, spec))
