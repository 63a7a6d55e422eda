"""Project Z's check of a single piece, written once: its ``spec`` makes the cases from the seed and says what the
student's discounted returns must be on each. Final grading's child calls the student's function on the cases' inputs
alone and the grader judges; the students' checker runs the same collector and judge on the spec recorded at release,
so on the public seeds both say the same row (``autograder/projects/_shared/calls.py``)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Bar
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, out_array
from autograder.projects.z_returns import oracle


def cases(seed: int, n: int) -> list[tuple[np.ndarray, float]]:
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
                 for i, (rewards, gamma) in enumerate(cases(ctx.seed, ctx.bar.cases))]
        return {"kind": "calls", "calls": calls, "total": len(calls),
                "passed": "every return matches r_t + gamma * G_{t+1}"}
