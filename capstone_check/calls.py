"""Checks of single pieces: call the student's function on the recorded public inputs and compare each output with
the value final grading's reference gives on those inputs (recorded at release), with final grading's tolerance.

A call's ``out`` says what must come back: ``{"array": want, "shape": ..., "compare": ..., "tol": ...}``,
``{"float": want, ...}``, ``{"pair": [out, out]}``, ``{"dict": {key: out}}``, ``{"raises": "ValueError"}``; and a
call may name arguments that must come back unchanged (``keep``) or a range its number must fall in (``range``).
The first failure of each group is reported; the check scores the share of groups without one.
"""

from __future__ import annotations

import operator
from functools import reduce

import numpy as np

from capstone_check.located import after_lead, located, raising, sentence, smallest_case
from capstone_check.student import StudentError, as_array, as_float, describe
from capstone_check.own_lines import led, through_calls
from capstone_check.values import COMPARE, decode, difference, fmt, same
from capstone_check.verdict import RECOGNISED, Verdict, failing_message


def _shaped(value, out: dict, what: str):
    """The student's value as the check collects it (a StudentError when it cannot be: wrong type, shape, NaN)."""
    if "pair" in out:
        if not isinstance(value, (tuple, list)) or len(value) != len(out["pair"]):
            raise StudentError(f"{what}: expected a pair of values, found {describe(value)}", "invalid")
        return [_shaped(v, o, f"{what}[{i}]") for i, (v, o) in enumerate(zip(value, out["pair"]))]
    if "dict" in out:
        if not isinstance(value, dict) or set(value) != set(out["dict"]):
            raise StudentError(f"{what}: expected a dict with keys {', '.join(out['dict'])}, found "
                               f"{describe(value)}", "invalid")
        return {k: _shaped(value[k], o, f"{what}['{k}']") for k, o in out["dict"].items()}
    if "float" in out and out.get("finite", True):
        return as_float(value, what)
    shape = out.get("shape", ())
    return as_array(value, shape, what, finite=out.get("finite", True))


def _mismatch(got, out: dict) -> str | None:
    """Why ``got`` is not what ``out`` expects, or None."""
    if "pair" in out:
        return next((m for g, o in zip(got, out["pair"]) if (m := _mismatch(g, o))), None)
    if "dict" in out:
        return next((f"['{k}'] {m}" for k, o in out["dict"].items() if (m := _mismatch(got[k], o))), None)
    want = decode(out["array"] if "array" in out else out["float"])
    if COMPARE[out.get("compare", "close")](got, want, out["tol"]):
        return None
    if np.ndim(want) == 0:
        return f"returned {fmt(got)}, expected {fmt(want)}"
    if np.size(want) > 8:  # too many numbers to read: the smallest failing case shows a small one whole
        return f"returned other values ({difference(got, want)})"
    return f"returned {fmt(got)}, expected {fmt(want)} ({difference(got, want)})"


def flat(value) -> list[float]:
    """A piece's output as one list of numbers, whatever its form (a number, an array, a pair, a list): how the kit
    records a known mistake's values at release and how this checker compares the student's output with them."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [x for part in value for x in flat(part)]
    return [float(x) for x in np.ravel(np.asarray(value, dtype=float))]


def recognised(spec: dict, got, ids=None) -> list[str]:
    """The ids of the check's recorded mistakes (``spec["mistakes"]``: id -> values, or only those of ``ids``) whose
    values are the student's output ``got``, flattened."""
    values = flat(got)
    return [mid for mid, want in spec.get("mistakes", {}).items()
            if (ids is None or mid in ids) and not isinstance(want, dict) and same(values, want)]


def recognised_parts(spec: dict, got: dict) -> list[str]:
    """The ids of the check's mistakes recorded on one part of its output (``spec["parts"]``: id -> the keys that lead
    to that part of ``got``) whose values are that part of the student's output."""
    return [mid for mid, keys in spec.get("parts", {}).items()
            if recognised(spec, reduce(operator.getitem, keys, got), [mid])]


def with_findings(verdict: Verdict, spec: dict, ids) -> Verdict:
    """``verdict``, its message ending with the sentence of each recognised mistake when the check failed: said
    last, after what was expected and found, which make room for it (``failing_message``)."""
    ids = list(dict.fromkeys(ids))
    if verdict.fraction < 1 and ids:
        verdict.findings = [spec["findings"][m] for m in ids]  # their sentences, which the row carries beside
        named = "; " + "; ".join(f"{RECOGNISED}{sentence}" for sentence in verdict.findings)
        verdict.message = (failing_message(**verdict.parts, named=named) if verdict.parts
                           else f"{verdict.message}{named}")
    return verdict


def _part(value, part):
    return value if part is None else value[part]


def _expected(out: dict, part):
    """The expected value of one part of a call's ``out`` (None: the whole)."""
    if part is not None:
        out = out["pair" if isinstance(part, int) else "dict"][part]
    return decode(out["array"] if "array" in out else out["float"])


def where_said(spec: dict, compared: dict) -> list[dict]:
    """Where each subject's output departs (``spec["locate"]``: the check, and per subject key the subject and its
    features; ``compared``: per key, (got, want, masks) of the calls that join it), as final grading says it."""
    if "locate" not in spec:
        return []
    where, said = spec["locate"], []
    for key, about in where["subjects"].items():
        cases = compared.get(key, [])
        said += located([(g, w) for g, w, _ in cases], where["tol"], where["check"], about["subject"],
                        about["features"], [m for _, _, m in cases]) if cases else []
    return said


def where_and_smallest(student, spec: dict, verdict: Verdict) -> Verdict:
    """``verdict`` (its message led by where its output departs, from ``Verdict.of``), when it failed, ending with
    the smallest rung of ``spec["ladder"]`` that fails, as final grading says it."""
    if verdict.fraction >= 1:
        return verdict
    if "ladder" in spec:
        ladder, rungs = spec["ladder"], []
        for rung in ladder["rungs"]:
            try:
                got = student.call(ladder["fn"], ladder.get("module"), decode(rung["args"]), {})
                got = np.asarray(got[ladder["pick"]] if ladder.get("pick") is not None else got, dtype=float)
            except Exception:  # noqa: BLE001 - a rung is shown, never graded: one that fails is shown as raising
                got = None
            rungs.append((rung["what"], got, decode(rung["want"])))
        case = smallest_case(rungs, ladder["tol"])
        verdict.message += f". {case}" if case else ""
    return verdict


def raised_where(student, spec: dict, raised: list[tuple[dict, StudentError | None]]) -> StudentError:
    """The first exception of a piece that raised on some of its located calls (``raised``: each located call and what
    it raised, or None), led, as final grading leads it, by the piece it departs through and the feature of the calls
    it raised on."""
    first = next(exc for _, exc in raised if exc is not None)
    where, said = spec["locate"], []
    for key, about in where["subjects"].items():
        calls = [(call, exc) for call, exc in raised if any(k == key for k, _ in call["locate"])]
        if any(exc is not None for _, exc in calls):
            said += raising(where["check"], calls[0][0]["fn"], about["features"],
                            [decode(c["masks"]) for c, _ in calls], [exc is not None for _, exc in calls])
    return StudentError(after_lead(sentence(led(through_calls(student, spec), said, named=False)), str(first)),
                        first.kind, first.exception)


def run_calls(student, spec: dict) -> Verdict:
    failed: dict[str, str] = {}
    compared: dict = {}  # subject key -> (got, want, masks) of the calls that say where its output departs
    matches: dict[str, bool] = {}  # recorded mistake -> whether every call that records it matched so far
    located_calls: list[tuple[dict, StudentError | None]] = []  # each located call and what it raised: the rest run
    for call in spec["calls"]:
        args, kwargs = decode(call.get("args", [])), decode(call.get("kwargs", {}))
        kept = {i: np.array(args[i], copy=True) for i in call.get("keep", [])}
        out, what = call["out"], call["what"]
        if "raises" in out:
            raised = student.call(call["fn"], call.get("module"), args, kwargs, raises=out["raises"])
            if not raised and call["group"] not in failed:
                failed[call["group"]] = out["message"]
            if "mistake" in call:  # a known mistake of its own: returning where it should raise
                matches[call["mistake"]] = not raised
            continue
        try:
            got = _shaped(student.call(call["fn"], call.get("module"), args, kwargs), out, what)
        except StudentError as exc:
            if exc.kind != "raised" or not call.get("locate") or not spec.get("locate", {}).get("raising"):
                raise StudentError(after_lead(sentence(through_calls(student, spec)), str(exc)), exc.kind,
                                   exc.exception) from None
            located_calls.append((call, exc))
            continue
        if call.get("locate") and spec.get("locate", {}).get("raising"):
            located_calls.append((call, None))
        for mistake, value in call.get("mistakes", {}).items():
            matches[mistake] = matches.get(mistake, True) and same(flat(got), value)
        for i, before in kept.items():
            if call["group"] not in failed and not np.array_equal(args[i], before):
                failed[call["group"]] = f"{what}: changed the array it was given; return a new array"
        base = decode(call["base"]) if "base" in call else 0.0  # a step is located by its change, not its new values
        for key, part in call.get("locate", []):
            compared.setdefault(key, []).append((_part(got, part) - base, _expected(out, part) - base,
                                                 decode(call["masks"])))
        if "pick" in call:  # one part of a pair or one key of a dict, in a group of its own
            got, out = got[call["pick"]], out["pair" if isinstance(call["pick"], int) else "dict"][call["pick"]]
        problem = _mismatch(got, out)
        if problem and call["group"] not in failed:
            failed[call["group"]] = f"{what}: {problem}" + (f" ({call['hint']})" if call.get("hint") else "")
        if "range" in call:
            low, high = call["range"]["bounds"]
            if not low <= got <= high:
                failed.setdefault(call["range"]["group"], f"{what}: {call['range']['message']}; returned {got:.4g}")
    if any(exc is not None for _, exc in located_calls):
        raise raised_where(student, spec, located_calls)
    named = [m for m, hit in matches.items() if hit]
    said = led(through_calls(student, spec), where_said(spec, compared), named=bool(named)) if failed else []
    verdict = with_findings(Verdict.of(list(failed.values()), spec["total"], spec["passed"], located=said), spec,
                            named)
    return where_and_smallest(student, spec, verdict)
