"""Project B's B.switches in both halves: the outputs of the student's switch functions under every setting
(``collect_switches``) and whether each switch changes exactly what the reference's does (``judge_switches``); final
grading runs the same two (``autograder.projects.b_ablations.switches``). ``switches`` adds, for the students'
checker alone, what the rows that train with the switches are predicted from."""

from __future__ import annotations

from capstone_check.calls import recognised_parts, with_findings
from .settings import (BASELINE_DIFFERS, setting_outputs, departure, outputs_compared,
                                              switch_problem, unchanged)
from capstone_check.student import StudentError
from capstone_check.values import decode
from capstone_check.verdict import Verdict

PASSED = "all nine switches do what the reference's do, and only that"


def collect_switches(student, spec: dict) -> dict:
    """Every setting's outputs; the first setting that raised ends the row, as it ends final grading's."""
    got, raised = outputs_by_setting(student, spec)
    if raised:
        raise next(iter(raised.values()))
    return {"outputs": got}


def judge_switches(spec: dict, collected) -> Verdict:
    """Per switch, whether flipping it changes exactly the output the reference's changes, and as it does
    (``collected``: untrusted where another process sent it); a baseline that differs is said once per function,
    then "likewise"."""
    got = collected.get("outputs") if isinstance(collected, dict) else None
    want = decode(spec["want"])
    if not isinstance(got, dict) or set(got) != set(want) or any(
            not isinstance(got[label], dict) or set(got[label]) != set(want[label]) for label in want):
        raise StudentError("the switches' outputs do not cover every setting and function", "invalid")
    failures, unjudged = [], set()
    for name, kind in spec["kinds"].items():
        problem = switch_problem(got, want, name, kind, spec["where"][name], spec["tol"])
        if problem and BASELINE_DIFFERS in problem:
            failures.append(f"{name}: likewise" if spec["where"][name] in unjudged else f"{name}: {problem}")
            unjudged.add(spec["where"][name])
        elif problem:
            failures.append(f"{name}: {problem}")
    passing = [name for name in spec["kinds"] if not any(f.startswith(f"{name}:") for f in failures)]
    verdict = Verdict.of(failures, len(spec["kinds"]), PASSED, switches_ok=passing)
    return with_findings(verdict, spec, _ignored(spec, got) + recognised_parts(spec, got))


def switches(student, spec: dict) -> Verdict:
    """B.switches in the students' checker: the row as final grading's, and per row that trains with the switches,
    whether what its runs flip passes."""
    got, raised = outputs_by_setting(student, spec)
    want = decode(spec["want"])
    problems = {name: _switch_problem(spec, got, want, name, kind) for name, kind in spec["kinds"].items()
                if not raised.keys() & {name, "baseline"}}
    wrong = set(raised) | {"baseline" if problem.endswith(BASELINE_DIFFERS) else name
                           for name, problem in problems.items() if problem}
    # per row that grades runs: whether the switches its runs flip (and the baseline) all pass, none of them raising
    basis = {cid: flipped is not None and not raised.keys() & flipped and (
                 not wrong & flipped or not fails_in_the_courses_runs(student, spec, flipped))
             for cid, flipped in flipped_in_runs(student).items()} if wrong else None
    if raised:  # the row is lost, as final grading loses it, on the first setting that raised
        first = next(iter(raised.values()))
        first.basis = basis
        raise first
    verdict = judge_switches(spec, {"outputs": got})
    verdict.basis = basis
    return verdict


def outputs_by_setting(student, spec: dict) -> tuple[dict, dict]:
    """({setting: the pieces' outputs under it}, {setting: the StudentError it raised}), every setting tried in the
    spec's order: a raise under one setting reaches only the runs that flip it."""
    got, raised = {}, {}
    for label, details in spec["settings"]:
        try:
            got[label] = setting_outputs(student, spec, details)
        except StudentError as exc:
            raised[label] = exc
    return got, raised


def fails_in_the_courses_runs(student, spec: dict, flipped: set[str]) -> bool:
    """Whether the baseline or a switch the student's runs flip still fails with the course's clip half-width and
    Adam's epsilon (recorded as ``trained``), which every graded run trains with: a value hard-coded at its default
    fails the check's own values only."""
    if "trained" not in spec:
        return True
    c, values = spec["constants"], spec["trained"]["values"]
    at = {**spec, "constants": {**c, "update": {**c["update"], "clip_eps": values["clip_eps"]},
                                "optimizer": {**c["optimizer"], "adam_eps": values["adam_eps"]}}}
    got = {label: setting_outputs(student, at, d) for label, d in spec["settings"] if label in flipped}
    trained, want = decode(spec["trained"]["want"]), decode(spec["want"])
    want = {label: {**outputs, **trained.get(label, {})} for label, outputs in want.items()}
    if any(departure(got["baseline"], want["baseline"], k, spec["tol"]) is not None
           for k in outputs_compared(want["baseline"])):
        return True
    return any(_switch_problem(spec, got, want, name, spec["kinds"][name]) for name in flipped - {"baseline"}
               if name in spec["kinds"])


def _switch_problem(spec: dict, got: dict, want: dict, name: str, kind: str) -> str | None:
    return switch_problem(got, want, name, kind, spec["where"][name], spec["tol"])


def _ignored(spec: dict, got: dict) -> list[str]:
    """The mistakes of the switches whose flipping changes none of the outputs."""
    return [mid for name, mid in spec["ignored"].items()
            if unchanged(got[name], got["baseline"], outputs_compared(got[name]))]


def flipped_in_runs(student) -> dict[str, set[str] | None]:
    """Per row of final grading, what the runs it grades flip (a switch no run flips is never replayed): B.table's
    the baseline and the details ``conclusion()`` names, B.bar's the baseline and those ``ablated()`` names; None
    where the function does not say."""
    return {"B.table": _with_baseline(student, "conclusion"), "B.bar": _with_baseline(student, "ablated")}


def _with_baseline(student, function: str) -> set[str] | None:
    try:
        names = student.fn(function, "ablation")()
    except StudentError:
        return None
    if not isinstance(names, (list, tuple)) or not all(isinstance(name, str) for name in names):
        return None
    return {"baseline", *names}
