"""Project Z's checks, each written once. Z.returns, of a single piece: its ``spec`` makes the cases from the seed and
says what the student's discounted returns must be on each. Final grading's child calls the student's function on the
cases' inputs alone and the grader judges; the students' checker runs the same collector and judge on the spec
recorded at release, so on the public seeds both say the same row (``autograder/projects/_shared/calls.py``).
Z.value_step, of a piece handed objects (a critic and its optimizer): its collector and judge are the project's public
half's (``public/value_step.py``), which the students' bundle ships."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Bar
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, encode, out_array
from autograder.projects._shared.once import WrittenOnce
from autograder.projects.z_returns import oracle
from autograder.projects.z_returns.public.value_step import collect_value_step, judge_value_step


def cases_of(seed: int, n: int) -> list[tuple[np.ndarray, float]]:
    """``n`` reward sequences of lengths 1 to 40 with a discount each."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=int(rng.integers(1, 41))), float(rng.choice([0.0, 0.5, 0.9, 0.99, 1.0])))
            for _ in range(n)]


class Returns(CallsCheck):
    id = "Z.returns"
    name = "Discounted returns, G_t = r_t + gamma * G_{t+1}"

    class Bar(Bar):
        cases: int = Field(description="reward sequences the student's function is called on")
        tolerance: float = Field(description="largest gap from the oracle: absolute below 1, relative above")

    def spec(self, ctx) -> dict:
        """One call per case, each its own group, with the oracle's returns as what it must give."""
        calls = [call("discounted_returns", [rewards, gamma],
                      out_array(oracle.discounted_returns(rewards, gamma), ctx.bar.tolerance),
                      f"discounted_returns({len(rewards)} rewards, gamma={gamma})", f"case {i}")
                 for i, (rewards, gamma) in enumerate(cases_of(ctx.seed, ctx.bar.cases))]
        return {"kind": "calls", "calls": calls, "total": len(calls),
                "passed": "every return matches r_t + gamma * G_{t+1}"}


class ValueStep(WrittenOnce):
    id = "Z.value_step"
    name = "One step of a linear critic toward the returns, handed the critic and its optimizer"

    class Bar(Bar):
        cases: int = Field(description="critics and reward sequences the student's step is handed")
        steps: int = Field(description="calls of the step per case, each with the same optimizer")
        lr: float = Field(description="the optimizer's step size")
        tolerance: float = Field(description="largest gap from the oracle: absolute below 1, relative above")

    def spec(self, ctx) -> dict:
        """Per case, the critic, features and rewards it starts from, and what ``steps`` steps must give."""
        rng, bar, cases = np.random.default_rng(ctx.seed), ctx.bar, []
        for i, (rewards, gamma) in enumerate(cases_of(ctx.seed, bar.cases)):
            features = rng.normal(size=(len(rewards), 3))
            w, b = rng.normal(size=3), rng.normal(size=1)
            want = oracle.value_steps(w, b, features, rewards, gamma, bar.lr, bar.steps)
            cases.append({"label": f"case {i} ({len(rewards)} rewards, gamma={gamma})", "gamma": gamma,
                          "args": encode([w, b, features, rewards]), "want": encode(want)})
        return {"kind": "z_value_step", "cases": cases, "steps": bar.steps, "lr": bar.lr, "tolerance": bar.tolerance}

    def inputs(self, spec: dict, ctx) -> dict:
        return {**spec, "cases": [{key: case[key] for key in ("label", "gamma", "args")} for case in spec["cases"]]}

    def gather(self, student, inputs: dict) -> dict:
        return collect_value_step(student, inputs)

    def decide(self, spec: dict, data):
        return judge_value_step(spec, data)
