"""Project A's A.ratio in both halves: ``importance_ratio`` on its own, and the ratio on ``ppo_update``'s first
minibatch of the first epoch, read from the arguments of its first ``clipped_surrogate`` call (exactly 1 there: the
policy has not moved). Final grading runs the same two (``autograder.projects.a_ppo.ratio``)."""

from __future__ import annotations

import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.cascade import Probe, explained
from .located import RATIO_SUBJECT, update_raised
from .batch import config, first_surrogate_call, from_the_batch
from capstone_check.located import located
from capstone_check.student import StudentError, as_array
from capstone_check.values import close, decode, difference, same
from capstone_check.verdict import Verdict
from rlkit.cartpole import N_ACTIONS
from rlkit.categorical import log_prob

SHAPES = "the recorded clipped_surrogate call does not have a minibatch's shapes"


def ratio(student, spec: dict) -> Verdict:
    """A.ratio, collected and judged in one process."""
    return judge_ratio(spec, collect_ratio(student, spec))


def collect_ratio(student, spec: dict) -> dict:
    """``importance_ratio`` on the spec's log-probabilities, and the arguments of ``ppo_update``'s first
    ``clipped_surrogate`` call on the spec's agent and batch; where the update raised, what it said (with the piece it
    relies on that misbehaves, from the spec's ``probes``) and whether it had reached its first objective."""
    new, old = decode(spec["new"]), decode(spec["old"])
    got = as_array(student.fn("importance_ratio")(new.copy(), old.copy()), (50,), "importance_ratio")
    agent, batch_, seen = decode(spec["agent"]), decode(spec["batch"]), {}
    probes = [Probe(*probe) for probe in decode(spec.get("probes", []))]
    try:  # the ratio is graded even when ppo_update cannot run yet; the row then says why the rest could not
        explained(student, "ppo_update", lambda: first_surrogate_call(
            student, agent, batch_, lambda: config(student, spec["config"]), seen), probes)
    except StudentError as exc:  # and, when its code raised, whether that was before its first objective
        return {"ratio": got, "update_failed": str(exc),
                **({"reached_objective": bool(seen)} if exc.kind == "raised" else {})}
    return {"ratio": got, "called": bool(seen), **seen}


def judge_ratio(spec: dict, collected) -> Verdict:
    """The ratio against exp(new - old), then the first minibatch's against 1 (``collected``: untrusted where another
    process sent it)."""
    if not isinstance(collected, dict) or "ratio" not in collected:
        raise StudentError("the ratio collected is not the check's", "invalid")
    got, want, tol = np.asarray(collected["ratio"], dtype=float), decode(spec["want"]), spec["tol"]
    failures, found = [], recognised(spec, got, ["A.ratio.inverted"])
    if got.shape != want.shape or not close(got, want, tol):
        failures.append(f"importance_ratio should be exp(logp_new - logp_old); {difference(got, want)}")
    if "update_failed" in collected:
        failures.append(f"the ratio on ppo_update's first minibatch could not be read: {collected['update_failed']}")
    elif not collected.get("called"):
        failures.append("ppo_update never called clipped_surrogate, so the ratio of its first minibatch could not be "
                        "read; compute the objective with your clipped_surrogate")
    else:
        failures += first_minibatch(spec, collected, found)
    ratio_right = not failures or not failures[0].startswith("importance_ratio")
    said = [] if ratio_right else located([(got, want)], tol, "A.ratio", RATIO_SUBJECT)
    raised = update_raised(collected.get("reached_objective")) if "update_failed" in collected else []
    said += raised  # a row led by where the update raised says its exception rather than that the ratio is right
    verdict = Verdict.of(failures, 2, "exp(new - old), and 1 on the first minibatch", located=said,
                         note="importance_ratio is right" if ratio_right and not raised else "")
    return with_findings(verdict, spec, found)


def first_minibatch(spec: dict, collected: dict, found: list[str]) -> list[str]:
    """What is wrong with the ratio on the first minibatch, from the recorded call; the batch-order log-probs it shows
    go into ``found``."""
    logits, actions = np.asarray(collected.get("logits"), float), np.asarray(collected.get("actions"), float)
    logp_old, batch_ = np.asarray(collected.get("logp_old"), float), decode(spec["batch"])
    B = len(logits) if logits.ndim else 0
    if B == 0 or logits.shape != (B, N_ACTIONS) or actions.shape != (B,) or logp_old.shape != (B,) \
            or not np.all(np.isin(actions, range(N_ACTIONS))):
        return [SHAPES]
    actions = actions.astype(int)
    if same(logp_old, batch_["logp"][:B], 1e-9) and not np.array_equal(actions, batch_["actions"][:B]):
        found.append("A.ratio.log-probs-not-shuffled")
    deviation = float(np.abs(np.exp(log_prob(logits, actions) - logp_old) - 1).max())
    if not deviation <= spec["first_tol"]:
        return [f"on the first minibatch of the first epoch every ratio should be 1 (the policy has not changed yet); "
                f"max |rho - 1| = {deviation:.3g}. Are the stored log-probs and actions indexed with the same "
                "minibatch as the observations?"]
    if not from_the_batch(logits, actions, logp_old, decode(spec["agent"]), batch_):
        return ["the first clipped_surrogate call of ppo_update should be on a minibatch of the batch it was given: "
                "the policy's logits at the batch's observations, with their stored actions and log-probs"]
    return []
