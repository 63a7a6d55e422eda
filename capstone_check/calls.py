"""Checks of calls, written once for both sides: the student's functions are called on a spec's inputs
(``capstone_check.calling.collect_calls``) and ``judge_calls`` compares what came back with the values the reference
gives on them. Final grading makes the spec from its grading seeds (``autograder.projects._shared.calls.CallsCheck``),
collects in its sandboxed child and judges in its own process; the students' checker reads the spec recorded at
release on the public seeds and runs the same two halves in one child, so on those seeds its row is final grading's.

A call's ``out`` says what must come back: ``{"array": want, "shape": ..., "compare": ..., "tol": ...}``,
``{"float": want, ...}``, ``{"pair": [out, out]}``, ``{"dict": {key: out}}``, ``{"raises": "ValueError"}``; and a
call may name arguments that must come back unchanged (``keep``) or a range its number must fall in (``range``).
The first failure of each group is reported; the check scores the share of groups without one.
"""

from __future__ import annotations

import operator
from functools import reduce

import numpy as np

from capstone_check.calling import collect_calls, shaped
from capstone_check.located import located, raising, smallest_case
from capstone_check.student import StudentError, collected_or_located
from capstone_check.own_lines import led, through_calls, through_said
from capstone_check.values import COMPARE, decode, difference, fmt, same
from capstone_check.verdict import Verdict


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
    """``verdict`` with the known mistakes it recognised (``ids``), when it failed: each ``{"id", "text"}``, said
    beside its message, never in it, as final grading's report says them."""
    ids = list(dict.fromkeys(ids))
    if verdict.fraction < 1 and ids:
        verdict.findings = [{"id": m, "text": spec["findings"][m]} for m in ids]
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


def where_and_smallest(spec: dict, verdict: Verdict, ladder_outputs) -> Verdict:
    """``verdict`` (its message led by where its output departs, from ``Verdict.of``), when it failed, ending with
    the smallest rung of ``spec["ladder"]`` that fails (``ladder_outputs``: each rung's output, None where it
    raised), as final grading says it."""
    if verdict.fraction >= 1 or "ladder" not in spec:
        return verdict
    ladder = spec["ladder"]
    if not isinstance(ladder_outputs, list) or len(ladder_outputs) != len(ladder["rungs"]):
        raise StudentError("the ladder's outputs collected do not answer its rungs one for one", "invalid")
    rungs = [(rung["what"], None if got is None else np.asarray(got, dtype=float), decode(rung["want"]))
             for rung, got in zip(ladder["rungs"], ladder_outputs)]
    case = smallest_case(rungs, ladder["tol"])
    verdict.message += f". {case}" if case else ""
    return verdict


def raised_said(spec: dict, raised: list[int]) -> list[dict]:
    """Where a piece raised, from the indices of the spec's calls it raised on (``raised``): per subject of
    ``spec["locate"]``, the feature of its located calls that raised, as final grading says it."""
    where, said = spec["locate"], []
    for key, about in where["subjects"].items():
        calls = [(i, call) for i, call in enumerate(spec["calls"]) if any(k == key for k, _ in call.get("locate", []))]
        if any(i in raised for i, _ in calls):
            masks, raised_on = [decode(call["masks"]) for _, call in calls], [i in raised for i, _ in calls]
            said += raising(where["check"], calls[0][1]["fn"], about["features"], masks, raised_on)
    return said


def error_said(spec: dict, partial) -> list[dict]:
    """Where the output had departed when the student's code raised, from the ``partial`` it was handed on with
    (untrusted where another process sent it): the piece a composite departs through, then the feature of the located
    calls it raised on."""
    if not isinstance(partial, dict):
        return []
    raised = partial.get("raised")
    count = len(spec["calls"])
    indices = [i for i in raised if type(i) is int and 0 <= i < count] if isinstance(raised, list) else []
    raising_here = spec.get("locate", {}).get("raising", False)
    return led(through_said(spec, partial.get("through")), raised_said(spec, indices) if raising_here and indices
               else [], named=False)


def judge_calls(spec: dict, collected, through=None) -> Verdict:
    """The verdict on the outputs ``collect_calls`` gathered (``collected``, untrusted where another process sent it:
    a value of the wrong form is the student's error), against the spec's expected values: the share of groups
    without a failure, where the output departs, the known mistakes its outputs are, and the smallest failing rung.
    The piece a composite departs through is said from the re-runs collected beside (``collected["through"]``), or
    by ``through()``, asked only of a failing row (the students' checker re-runs only then)."""
    outputs = collected.get("outputs") if isinstance(collected, dict) else None
    if not isinstance(outputs, list) or len(outputs) != len(spec["calls"]):
        raise StudentError("the outputs collected do not answer the check's calls one for one", "invalid")
    failed: dict[str, str] = {}
    compared: dict = {}  # subject key -> (got, want, masks) of the calls that say where its output departs
    matches: dict[str, bool] = {}  # recorded mistake -> whether every call that records it matched so far
    for call, output in zip(spec["calls"], outputs):
        out, what = call["out"], call["what"]
        if "raises" in out:
            raised = _told(output, "raised", bool)
            if not raised and call["group"] not in failed:
                failed[call["group"]] = out["message"]
            if "mistake" in call:  # a known mistake of its own: returning where it should raise
                matches[call["mistake"]] = not raised
            continue
        got = shaped(_told(output, "got", object), out, what)
        for mistake, value in call.get("mistakes", {}).items():
            matches[mistake] = matches.get(mistake, True) and same(flat(got), value)
        if _told(output, "changed", bool) and call["group"] not in failed:
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
    named = [m for m, hit in matches.items() if hit]
    via = (through() if through else through_said(spec, collected.get("through"))) if failed else []
    said = led(via, where_said(spec, compared), named=bool(named)) if failed else []
    verdict = with_findings(Verdict.of(list(failed.values()), spec["total"], spec["passed"], located=said), spec,
                            named)
    return where_and_smallest(spec, verdict, collected.get("ladder"))


def _told(output, key: str, kind):
    """``output[key]`` as ``collect_calls`` sends it; anything else is a value of the wrong form."""
    if not isinstance(output, dict) or key not in output or not isinstance(output[key], kind):
        raise StudentError(f"the collected output has no {key!r} of the form the check sends", "invalid")
    return output[key]


def run_calls(student, spec: dict) -> Verdict:
    """A check of calls in the students' checker: collected and judged in one process, as final grading's child
    collects and its judge decides."""
    return judge_calls(spec, collected_or_located(collect_calls, error_said, student, spec),
                       through=lambda: through_calls(student, spec))
