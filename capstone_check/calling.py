"""The collecting half of a check of calls (``capstone_check.calls``): what the student's functions return on a spec's
calls, in the process that runs the student's code. It reads only the calls' inputs and the form of each output
(``inputs_of``), so final grading hands its child nothing a call must give; the judge, in another process, compares.
"""

from __future__ import annotations

import numpy as np

from capstone_check.cascade import Probe, explained
from capstone_check.own_lines import collect_through
from capstone_check.student import StudentError, as_array, as_float, describe
from capstone_check.values import decode


def shaped(value, out: dict, what: str):
    """The student's value as the check collects it (a StudentError when it cannot be: wrong type, shape, NaN)."""
    if "pair" in out:
        if not isinstance(value, (tuple, list)) or len(value) != len(out["pair"]):
            raise StudentError(f"{what}: expected a pair of values, found {describe(value)}", "invalid")
        return [shaped(v, o, f"{what}[{i}]") for i, (v, o) in enumerate(zip(value, out["pair"]))]
    if "dict" in out:
        if not isinstance(value, dict) or set(value) != set(out["dict"]):
            raise StudentError(f"{what}: expected a dict with keys {', '.join(out['dict'])}, found "
                               f"{describe(value)}", "invalid")
        return {k: shaped(value[k], o, f"{what}['{k}']") for k, o in out["dict"].items()}
    if "float" in out and out.get("finite", True):
        return as_float(value, what)
    shape = out.get("shape", ())
    return as_array(value, shape, what, finite=out.get("finite", True))


def raised_where(student, spec: dict, raised: list[tuple[int, StudentError | None]]) -> StudentError:
    """The first exception of a piece that raised on some of its located calls (``raised``: each located call's index
    and what it raised, or None), its ``partial`` naming the calls that raised (``error_said`` says where from them)."""
    first = next(exc for _, exc in raised if exc is not None)
    return with_partial(student, spec, first, [i for i, exc in raised if exc is not None])


def with_partial(student, spec: dict, exc: StudentError, raised: list[int] | None = None) -> StudentError:
    """``exc`` (the student's code raised on a call) as the check hands it on: its ``partial`` holds the indices of
    the located calls that raised, and the composite's re-runs with stand-ins, from which ``error_said`` says where
    its output had departed."""
    error = StudentError(str(exc), exc.kind, exc.exception)
    error.partial = {**({"raised": raised} if raised else {}),
                     **({"through": collect_through(student, spec)} if "through" in spec else {})}
    return error


# what ``collect_calls`` reads of a call, beside the form of its output
CALL_INPUTS = ("fn", "module", "args", "kwargs", "keep", "what", "group", "locate", "masks")


def collect_calls(student, spec: dict) -> dict:
    """What the student's functions return on the spec's calls, in the process that runs the student's code: per call
    its output as the check reads it (``got``, and ``changed``: whether it changed an argument it must keep) or, for a
    call that must raise, ``raised``; and, where the spec has a ladder, each rung's output (None where it raises).
    Reads only the calls' inputs (``inputs_of``): what they must give is the judge's, in another process."""
    outputs: list[dict | None] = []
    located_calls: list[tuple[int, StudentError | None]] = []  # each located call and what it raised: the rest run
    for index, call in enumerate(spec["calls"]):
        args, kwargs = decode(call.get("args", [])), decode(call.get("kwargs", {}))
        kept = {i: np.array(args[i], copy=True) for i in call.get("keep", [])}
        out = call["out"]
        if "raises" in out:
            outputs.append({"raised": bool(student.call(call["fn"], call.get("module"), args, kwargs,
                                                        raises=out["raises"]))})
            continue
        located_here = bool(call.get("locate")) and spec.get("locate", {}).get("raising", False)
        try:
            got = _called(student, spec, call, args, kwargs)
        except StudentError as exc:
            if exc.kind != "raised" or not located_here:
                raise with_partial(student, spec, exc) from None
            located_calls.append((index, exc))
            outputs.append(None)
            continue
        if located_here:
            located_calls.append((index, None))
        outputs.append({"got": got, "changed": any(not np.array_equal(args[i], before) for i, before in kept.items())})
    if any(exc is not None for _, exc in located_calls):
        raise raised_where(student, spec, located_calls)
    return {"outputs": outputs, **({"ladder": _ladder_outputs(student, spec["ladder"])} if "ladder" in spec else {})}


def _called(student, spec: dict, call: dict, args: list, kwargs: dict):
    """The student's output on one call, as the check reads it; where the call is of the composite the spec's
    ``cascade`` names, an error out of it names the piece it relies on that misbehaves on the cascade's probes."""
    def output():
        return shaped(student.call(call["fn"], call.get("module"), args, kwargs), call["out"], call["what"])

    cascade = spec.get("cascade")
    if not cascade or call["fn"] != cascade["composite"]:
        return output()
    return explained(student, cascade["composite"], output, [Probe(*probe) for probe in decode(cascade["probes"])])


def _ladder_outputs(student, ladder: dict) -> list:
    """Each rung's output, or None where it raises or gives something else: a rung is shown, never graded."""
    outputs = []
    for rung in ladder["rungs"]:
        try:
            got = student.call(ladder["fn"], ladder.get("module"), decode(rung["args"]), {})
            got = np.asarray(got[ladder["pick"]] if ladder.get("pick") is not None else got, dtype=float)
        except Exception:  # noqa: BLE001 - a rung that fails is shown as raising
            got = None
        outputs.append(got)
    return outputs


def inputs_of(spec: dict, records: bool) -> dict:
    """The part of a calls spec that ``collect_calls`` reads: each call's inputs and the form of its output, with no
    expected value, no known mistake's values and no ladder answer; with ``records``, what the composite's re-runs
    read (``own_lines.collect_through``: the stand-ins' records, made for the public seeds only). Final grading
    hands its child this alone."""
    def form(out: dict) -> dict:
        if "pair" in out:
            return {"pair": [form(o) for o in out["pair"]]}
        if "dict" in out:
            return {"dict": {key: form(o) for key, o in out["dict"].items()}}
        if "raises" in out:
            return {"raises": out["raises"]}
        kept = {key: out[key] for key in ("shape", "finite") if key in out}
        return {"float": None, **kept} if "float" in out else kept

    calls = [{key: value for key, value in call.items() if key in CALL_INPUTS} | {"out": form(call["out"])}
             for call in spec["calls"]]
    ladder = spec.get("ladder")
    return {"calls": calls, **({"through": spec["through"]} if records and "through" in spec else {}),
            **({"cascade": spec["cascade"]} if "cascade" in spec else {}),
            **({"locate": {"raising": spec["locate"].get("raising", False), "check": spec["locate"]["check"],
                           "subjects": spec["locate"]["subjects"]}} if "locate" in spec else {}),
            **({"ladder": {**{k: v for k, v in ladder.items() if k != "rungs"},
                           "rungs": [{"args": rung["args"], "what": rung["what"]} for rung in ladder["rungs"]]}}
               if ladder else {})}
