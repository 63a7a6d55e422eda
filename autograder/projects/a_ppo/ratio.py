"""Project A's A.ratio: ``importance_ratio`` on its own, and the ratio on ``ppo_update``'s first minibatch of the first
epoch, read from the arguments of its first ``clipped_surrogate`` call (exactly 1 there: the policy has not moved)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from capstone_check.cascade import explained
from autograder.checks import Check, Malformed, ToleranceBar, Verdict, require
from autograder.comparisons import beyond, close, difference
from autograder.findings import Finding, matched, of_piece, same
from autograder.projects._shared.ppo.cases import update_case
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects.a_ppo.update import ppo_probes, student_config
from capstone_check.kinds.a_located import RATIO_SUBJECT, update_raised
from capstone_check.kinds.a_ppo import first_surrogate_call, from_the_batch
from capstone_check.located import located
from capstone_check.student import StudentError, as_array
from rlkit.cartpole import N_ACTIONS
from rlkit.categorical import log_prob


def record_first_surrogate(student, agent, batch, seen: dict) -> dict:
    """Run the student's ppo_update once, recording the arguments of its first clipped_surrogate call into ``seen``."""
    first_surrogate_call(student, agent, batch, lambda: student_config(student), seen)
    return {"called": bool(seen), **seen}


class Ratio(Check):
    id = "A.ratio"
    name = "The ratio: exp(new - old), and exactly 1 on the first minibatch of the first epoch"

    class Bar(ToleranceBar):
        first_minibatch_tolerance: float = Field(description="largest |ratio - 1| on ppo_update's first minibatch")

    def collect(self, student, ctx):
        rng = np.random.default_rng(ctx.seed)
        new, old = rng.normal(-1, 1, 50), rng.normal(-1, 1, 50)
        ratio = as_array(student.fn("importance_ratio")(new.copy(), old.copy()), (50,), "importance_ratio")
        seen = {}
        try:  # the ratio is graded even when ppo_update cannot run yet; the message then says why the rest could not
            first = explained(student, "ppo_update",
                              lambda: record_first_surrogate(student, *update_case(ctx.seed), seen), ppo_probes())
        except StudentError as exc:  # and, when its code raised, whether that was before its first objective
            return {"ratio": ratio, "called": False, "update_failed": str(exc),
                    **({"reached_objective": bool(seen)} if exc.kind == "raised" else {})}
        return {"ratio": ratio, **first}

    def judge(self, data, ctx):
        rng = np.random.default_rng(ctx.seed)
        new, old = rng.normal(-1, 1, 50), rng.normal(-1, 1, 50)
        failures = []
        if not close(data["ratio"], np.exp(new - old), ctx.bar.tolerance):
            flipped = close(data["ratio"], np.exp(old - new), 1e-9)
            found = " (it returned exp(old - new))" if flipped else f"; {difference(data['ratio'], np.exp(new - old))}"
            failures.append("importance_ratio should be exp(logp_new - logp_old)" + found)
        if "update_failed" in data:
            failures.append("the ratio on ppo_update's first minibatch could not be read: "
                            + require(data, "update_failed", str))
        elif not data["called"]:
            failures.append("ppo_update never called clipped_surrogate, so the ratio of its first minibatch could not "
                            "be read; compute the objective with your clipped_surrogate")
        else:
            logits, actions, logp_old = first_call(data)
            rho = np.exp(log_prob(logits, actions) - logp_old)
            deviation = float(np.abs(rho - 1).max())
            if beyond(deviation, ctx.bar.first_minibatch_tolerance):
                failures.append(f"on the first minibatch of the first epoch every ratio should be 1 (the policy has "
                                f"not changed yet); max |rho - 1| = {deviation:.3g}. Are the stored log-probs and "
                                "actions indexed with the same minibatch as the observations?")
            elif not from_the_batch(logits, actions, logp_old, *update_case(ctx.seed)):
                failures.append("the first clipped_surrogate call of ppo_update should be on a minibatch of the batch "
                                "it was given: the policy's logits at the batch's observations, with their stored "
                                "actions and log-probs")
        ratio_right = not failures or not failures[0].startswith("importance_ratio")
        said = [] if ratio_right else located([(data["ratio"], np.exp(new - old))], ctx.bar.tolerance, self.id,
                                              RATIO_SUBJECT)
        raised = update_raised(data.get("reached_objective")) if "update_failed" in data else []
        said += raised  # a row led by where the update raised says its exception rather than that the ratio is right
        return Verdict.of(failures, 2, "exp(new - old), and 1 on the first minibatch", located=said,
                          note="importance_ratio is right" if ratio_right and not raised else "",
                          findings=matched(of_piece(MISTAKES, "importance_ratio"), [(new, old)], [data["ratio"]])
                          + ratio_findings(data, ctx.seed))


def ratio_findings(data, seed: int) -> list[Finding]:
    """The first minibatch's stored log-probs taken in batch order, not through the minibatch's indices."""
    if not data.get("called") or "update_failed" in data:
        return []
    logp_old, batch = np.array(data["logp_old"], dtype=float), update_case(seed)[1]
    in_order = batch["logp"][:len(logp_old)]
    if same(logp_old, in_order, 1e-9) and not same(first_call(data)[1], batch["actions"][:len(logp_old)], 0):
        return [MISTAKES["A.ratio.log-probs-not-shuffled"].finding]
    return []


def first_call(data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logits, actions, logp_old) of the recorded call, of consistent shapes."""
    logits = np.array(data["logits"], dtype=float)
    actions, logp_old = np.array(data["actions"], dtype=float), np.array(data["logp_old"], dtype=float)
    B = len(logits)
    if B == 0 or logits.shape != (B, N_ACTIONS) or actions.shape != (B,) or logp_old.shape != (B,) \
            or not np.all(np.isin(actions, range(N_ACTIONS))):
        raise Malformed("the recorded clipped_surrogate call does not have a minibatch's shapes")
    return logits, actions.astype(int), logp_old
