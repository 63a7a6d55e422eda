"""Project Z's check of a single piece: the student's discounted returns against the oracle's, on cases made from the
seed."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Bar, Check, Verdict, pairs
from autograder.comparisons import close
from autograder.projects.z_returns import oracle
from capstone_check.located import shown  # a message prints at most 8 numbers of an array
from capstone_check.student import as_array


def cases(seed: int, n: int) -> list[tuple[np.ndarray, float]]:
    """``n`` reward sequences of lengths 1 to 40 with a discount each; the judge makes them again from the seed."""
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=int(rng.integers(1, 41))), float(rng.choice([0.0, 0.5, 0.9, 0.99, 1.0])))
            for _ in range(n)]


class Returns(Check):
    id = "Z.returns"
    name = "Discounted returns, G_t = r_t + gamma * G_{t+1}"

    class Bar(Bar):
        cases: int = Field(description="reward sequences the student's function is called on")
        tolerance: float = Field(description="largest gap from the oracle: absolute below 1, relative above")

    def collect(self, student, ctx):
        """In the child: call the student's function; hand back plain arrays, nothing judged here."""
        fn = student.fn("discounted_returns")
        return {"out": [as_array(fn(r.copy(), gamma), r.shape, f"discounted_returns(gamma={gamma})")
                        for r, gamma in cases(ctx.seed, ctx.bar.cases)]}

    def judge(self, data, ctx):
        """In the grader: make the cases again and compare with the oracle."""
        failures = [f"{len(r)} rewards, gamma={gamma}: returned {shown(got)}, expected "
                    f"{shown(oracle.discounted_returns(r, gamma))}"
                    for (r, gamma), got in pairs(cases(ctx.seed, ctx.bar.cases), data["out"])
                    if not close(got, oracle.discounted_returns(r, gamma), ctx.bar.tolerance)]
        return Verdict.of(failures, ctx.bar.cases, "every return matches r_t + gamma * G_{t+1}")
