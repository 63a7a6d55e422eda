"""Project Z's expected values for the students' checker: the grader's cases and the oracle's returns on them, so
that `capstone-check Z` calls the student's function and compares, with no oracle in the students' kit."""

from autograder.projects.z_returns import oracle
from autograder.projects.z_returns.pieces import cases
from autograder.projects._shared.encode import call, out_array


def returns(ctx) -> dict:
    """One call per case, each its own group, as the check counts them."""
    calls = [call("discounted_returns", [rewards, gamma],
                  out_array(oracle.discounted_returns(rewards, gamma), ctx.bar.tolerance),
                  f"discounted_returns({len(rewards)} rewards, gamma={gamma})", f"case {i}")
             for i, (rewards, gamma) in enumerate(cases(ctx.seed, ctx.bar.cases))]
    return {"kind": "calls", "calls": calls, "total": len(calls),
            "passed": "every return matches r_t + gamma * G_{t+1}"}


SPECS = {"Z.returns": returns}  # check id -> its expected values; a check not listed is final grading's alone
KINDS = {}  # kind -> the capstone_check function that runs it; "calls" (the student's functions called) is built in
