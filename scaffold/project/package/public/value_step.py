"""Z.value_step in both halves: the student's ``value_step`` handed a critic and an optimizer, stepped a few times
(``collect_value_step``), and what it left against the oracle's (``judge_value_step``). Final grading runs the same
two (``pieces.ValueStep``); the students' checker runs them in one process (``value_step``)."""

from __future__ import annotations

import numpy as np

from capstone_check.student import StudentError, as_float
from capstone_check.values import close, decode
from capstone_check.verdict import Verdict
from rlkit.nn import Adam


def value_step(student, spec: dict) -> Verdict:
    return judge_value_step(spec, collect_value_step(student, spec))


def collect_value_step(student, spec: dict) -> dict:
    """Per case, the losses ``value_step`` returns over ``steps`` calls and the critic it leaves."""
    step, out = student.fn("value_step"), []
    for case in spec["cases"]:
        w, b, features, rewards = decode(case["args"])
        critic = {"w": w.copy(), "b": b.copy()}
        optimizer = Adam([critic["w"], critic["b"]], lr=spec["lr"])
        losses = [as_float(step(critic, optimizer, features.copy(), rewards.copy(), case["gamma"]),
                           f"value_step (case {case['label']})") for _ in range(spec["steps"])]
        out.append({"losses": losses, "w": critic["w"].tolist(), "b": critic["b"].tolist(), "adam_steps": optimizer.t})
    return {"cases": out}


def judge_value_step(spec: dict, collected) -> Verdict:
    """Each case's losses, final critic and optimizer steps against the oracle's (``collected`` is untrusted)."""
    cases = collected.get("cases") if isinstance(collected, dict) else None
    if not isinstance(cases, list) or len(cases) != len(spec["cases"]) or not all(
            isinstance(got, dict) and set(got) == {"losses", "w", "b", "adam_steps"} for got in cases):
        raise StudentError(f"expected what value_step left on {len(spec['cases'])} cases", "invalid")
    try:  # what another process sent: numbers, or the row refuses it
        cases = [{**got, **{key: np.asarray(got[key], dtype=float).reshape(-1) for key in ("losses", "w", "b")}}
                 for got in cases]
    except (TypeError, ValueError):
        raise StudentError("expected numbers for the losses and the critic value_step left", "invalid") from None
    failures = []
    for case, got in zip(spec["cases"], cases):
        want, tol, label = decode(case["want"]), spec["tolerance"], case["label"]
        if got.get("adam_steps") != spec["steps"]:
            failures.append(f"{label}: the optimizer stepped {got.get('adam_steps')} times over {spec['steps']} calls, "
                            "expected once per call")
        elif not close(got["losses"], want["losses"], tol):
            failures.append(f"{label}: the losses returned were {np.round(got['losses'], 6).tolist()}, expected "
                            f"{np.round(want['losses'], 6).tolist()} (the loss before each step)")
        elif not (close(got["w"], want["w"], tol) and close(got["b"], want["b"], tol)):
            failures.append(f"{label}: the critic left after {spec['steps']} steps is not the one the loss's gradient "
                            "gives")
    return Verdict.of(failures, len(spec["cases"]), "every step moves the critic down the loss's gradient")
