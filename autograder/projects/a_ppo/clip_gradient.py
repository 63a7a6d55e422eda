"""Project A's A.clip_gradient: ``clipped_surrogate`` at theta_old, beyond the clip and on mixed ratios, its objective
and its gradient; and, on the public seeds, whether it departs only through ``importance_ratio``
(``capstone_check.through``)."""

from __future__ import annotations

import numpy as np

from autograder.checks import Check, ToleranceBar, Verdict, pairs
from autograder.comparisons import apart, close, difference
from autograder.findings import matched, of_piece
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.stand_ins import public_records
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects.a_ppo.pieces import surrogate_cases, surrogate_features
from capstone_check.kinds import a_located
from capstone_check.located import located
from capstone_check.student import StudentError, as_array, as_float, describe
from capstone_check.through import numbers, read_records, reran, through
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


class ClippedSurrogateGradient(Check):
    id = "A.clip_gradient"
    name = "Clipped surrogate: at theta_old its gradient is the plain policy gradient; beyond the clip it is zero"

    Bar = ToleranceBar

    def prepare(self, ctx) -> str | None:
        """Grader side, on the public seeds only: the stand-in's records (``_shared.stand_ins``)."""
        return public_records(ctx, ratio_records)

    def collect(self, student, ctx):
        fn = student.fn("clipped_surrogate")
        out = []
        for logits, actions, old, adv, eps, _ in surrogate_cases(ctx.seed):
            value = fn(logits.copy(), actions.copy(), old.copy(), adv.copy(), eps)
            if not isinstance(value, (tuple, list)) or len(value) != 2:
                raise StudentError(f"clipped_surrogate: expected (objective, gradient), found {describe(value)}",
                                   "invalid")
            out.append([as_float(value[0], "clipped_surrogate objective"),
                        as_array(value[1], logits.shape, "clipped_surrogate gradient")])
        return {"out": out, "through": reruns(student, ctx)}

    def judge(self, data, ctx):
        failed = {}
        for (logits, actions, old, adv, eps, kind), (objective, grad) in pairs(surrogate_cases(ctx.seed), data["out"]):
            want_objective, want_grad = oracle.clipped_surrogate(logits, actions, old, adv, eps)
            if kind == "at theta = theta_old":
                plain = oracle.plain_policy_gradient(logits, actions, adv)
                if not close(grad, plain, ctx.bar.tolerance):
                    failed.setdefault(kind, f"at theta = theta_old the gradient should equal the plain policy "
                                            f"gradient mean_i A_i (onehot(a_i) - pi); {difference(grad, plain)}")
            elif kind.startswith("beyond") and not close(grad, np.zeros_like(logits), ctx.bar.tolerance):
                failed.setdefault(kind, "beyond the clip on the favourable side (A > 0 and rho > 1 + eps, or A < 0 "
                                        "and rho < 1 - eps) the gradient must be 0; "
                                        f"{difference(grad, np.zeros_like(logits))}")
            if not close(grad, want_grad, ctx.bar.tolerance) or apart(objective, want_objective, ctx.bar.tolerance):
                failed.setdefault("values", f"{kind}: objective {objective:.6g} (expected {want_objective:.6g}), "
                                            f"gradient {difference(grad, want_grad)}")
        cases = [case[:5] for case in surrogate_cases(ctx.seed)]
        said = (through(self.id, "clipped_surrogate", THROUGH_NOUN, [THROUGH], data.get("through"),
                        [numbers(oracle.clipped_surrogate(*case)) for case in cases], ctx.bar.tolerance)
                if failed else [])
        return Verdict.of(list(failed.values()), 3, "the plain policy gradient at theta_old, zero beyond the clip, "
                          "and the right objective everywhere",
                          findings=matched(of_piece(MISTAKES, "clipped_surrogate"), cases, data["out"]),
                          located=said + surrogate_located(cases, data["out"], ctx.bar.tolerance))


def reruns(student, ctx) -> dict:
    """In the child: every case's objective and gradient, as one row of numbers, with the recorded stand-in in place
    of the student's ``importance_ratio`` (None where that cannot run); nothing without records (grading seeds)."""
    stand_ins = read_records(ctx.inputs)
    if not stand_ins:
        return {}
    module = student.module("ppo")

    def run():
        return [numbers(module.clipped_surrogate(logits.copy(), actions.copy(), old.copy(), adv.copy(), eps))
                for logits, actions, old, adv, eps, _ in surrogate_cases(ctx.seed)]

    return reran(module, stand_ins, run)


def surrogate_located(cases, outputs, tol) -> list[dict]:
    """Where the gradients depart (a feature of the samples, a relation), then where the objectives do (a relation
    over the minibatches): a wrong clip can leave every gradient right and still pick the wrong term of the min."""
    wanted = [oracle.clipped_surrogate(*case) for case in cases]
    return (located([(grad, want[1]) for (_, grad), want in zip(outputs, wanted)], tol, ClippedSurrogateGradient.id,
                    a_located.SURROGATE_SUBJECT, a_located.SAMPLE_FEATURES,
                    [surrogate_features(*case) for case in cases])
            + located([(objective, want[0]) for (objective, _), want in zip(outputs, wanted)], tol,
                      ClippedSurrogateGradient.id, a_located.OBJECTIVE_SUBJECT))


