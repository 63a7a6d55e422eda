"""Project A's A.clip_gradient: ``clipped_surrogate`` at theta_old, beyond the clip and on mixed ratios, its objective
and its gradient; and, on the public seeds, whether it departs only through ``importance_ratio``
(``capstone_check.through``, from the records ``ratio_records`` makes)."""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, encode, locate, located_call, out_array, out_float
from autograder.projects._shared.ppo import oracle
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects.a_ppo.pieces import surrogate_cases, surrogate_features
from autograder.projects.a_ppo.public import located as a_located
from rlkit.categorical import log_prob

THROUGH = "importance_ratio"  # the piece clipped_surrogate calls, whose stand-in may show it departs only through it
THROUGH_NOUN = "objectives and gradients"


def ratio_records(seed: int) -> dict[str, list]:
    """The reference's ``importance_ratio`` on the call a right ``clipped_surrogate`` makes on each case."""
    calls = []
    for logits, actions, old, *_ in surrogate_cases(seed):
        new = log_prob(logits, actions)
        calls.append([[new, old], np.exp(new - old)])
    return {THROUGH: calls}


class ClippedSurrogateGradient(CallsCheck):
    id = "A.clip_gradient"
    name = "Clipped surrogate: at theta_old its gradient is the plain policy gradient; beyond the clip it is zero"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        anything = out_float(0.0, np.inf, "absolute")  # the objective of a call that reads the gradient alone
        for logits, actions, old, adv, eps, kind in surrogate_cases(ctx.seed):
            want_objective, want_grad = oracle.clipped_surrogate(logits, actions, old, adv, eps)
            args = [logits, actions, old, adv, eps]
            if kind == "at theta = theta_old":
                plain = {"pair": [anything, out_array(oracle.plain_policy_gradient(logits, actions, adv), tol)]}
                calls.append(call("clipped_surrogate", args, plain, "at theta = theta_old the gradient should equal "
                                  "the plain policy gradient", kind, pick=1))
            elif kind.startswith("beyond"):
                zero = {"pair": [anything, out_array(np.zeros_like(logits), tol)]}
                calls.append(call("clipped_surrogate", args, zero, "beyond the clip on the favourable side the "
                                  "gradient should be zero", kind, pick=1))
            both = {"pair": [out_float(want_objective, tol, "absolute"), out_array(want_grad, tol)]}
            calls.append(located_call(call("clipped_surrogate", args, both, f"clipped_surrogate ({kind}, eps {eps})",
                                           "values"), surrogate_features(*args), ("gradient", 1), ("objective", 0)))
        through = {"check": self.id, "fn": "clipped_surrogate", "module": "ppo", "noun": THROUGH_NOUN, "tol": tol,
                   "records": encode(ratio_records(ctx.seed))}
        return {"kind": "calls", "calls": calls, "total": 3, "through": through,
                "passed": "the plain policy gradient at theta_old, zero beyond the clip, and the right objective "
                          "everywhere",
                **locate(self.id, tol, {"gradient": (a_located.SURROGATE_SUBJECT, a_located.SAMPLE_FEATURES),
                                        "objective": (a_located.OBJECTIVE_SUBJECT, {})})}
