"""Logs at the course's lines: fresh runs pushed, on one statistic each, to just inside or just outside the line where
the reference's ``diagnose`` decides, so that the order of its rules and each of its thresholds change a label.

A boundary log starts from one of the seed's fresh runs and keeps its fault: a fault made milder up to the line, or a
healthy run made to look as much like a fault as a healthy run may. Every statistic a rule of the README reads is set
exactly, to the same value on every seed, so a wrong line or a wrong order of the rules labels a log the same way
whichever run the seed trained (a value left as the run had it would fall on either side of a wrong line by seed):

- the mean entropy of the policy, per update (so over any span of updates), by scaling each update's logits;
- the explained variance of the critic over the late half, by moving each value towards or away from its return;
- the explained variance of the whole run, where a log names it, by moving the early half's values;
- the DQN's mean |TD error| / mean |Q| of each update, by scaling that update's TD errors (after the Q-values of the
  log's first and last transitions are raised, for the one log that raises them): a spike and the late half pooled,
  or every update after the first third, set exactly.

Lines of the course (README, ``lines.py``): a policy whose mean entropy is at most 0.1 nats is saturated, one at 0.25
or above may be healthy; a critic explaining at most a quarter of the returns' variance late in training is untrained,
one explaining 0.4 or more may be healthy; a DQN whose late updates include one with a relative TD error of 0.08 or
more has a small buffer, one whose late updates all stay at 0.05 or below may be healthy, however loud its first
third. Every statistic is set ``CLEARANCE`` beyond its line, away from the gap between two lines, so any threshold
inside a gap, taken with ``<`` or ``<=``, labels every log alike.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from autograder.projects.c_diagnosis import fresh, oracle, run_plan
from autograder.projects.c_diagnosis.lines import CLEARANCE, ENTROPY, LATE_TD, LATE_VARIANCE, late, late_variance


class Boundary(NamedTuple):
    name: str
    label: str  # the truth: the base run's own label
    base: tuple[str, int]  # (label, severity) of the fresh run it starts from
    entropy: float | None = None  # mean policy entropy of every update (a policy's log: always set)
    variance: float | None = None  # explained variance of the late half (a policy's log: always set)
    whole_variance: float | None = None  # explained variance of the whole run, set by the early half
    spike: float | None = None  # one late update's relative TD error; every other update's pooled to QUIET
    loud_start: float | None = None  # relative TD error of the whole log, carried by the first third
    far_ends: float | None = None  # the log's first and last Q-values raised to this many times its mean |Q|


SURE_ENTROPY = 0.45  # a policy clear of both entropy lines: the entropy of a log about the critic
SURE_VARIANCE = 0.6  # a critic clear of both variance lines: the late explained variance of a log about the policy
QUIET = LATE_TD.healthy - CLEARANCE  # relative TD error of a DQN's updates away from its spike, and the most a
# healthy late update shows
BOUNDARIES = [
    Boundary("a healthy policy as confident as a healthy one gets", "healthy", ("healthy", 1),
             entropy=ENTROPY.healthy + CLEARANCE, variance=SURE_VARIANCE),
    Boundary("a saturated policy loosened to the line", "saturated_policy", ("saturated_policy", 1),
             entropy=ENTROPY.fault - CLEARANCE, variance=SURE_VARIANCE),
    Boundary("a saturated policy whose critic explains little", "saturated_policy", ("saturated_policy", 2),
             entropy=0.05, variance=0.1),
    Boundary("an untrained critic that explains a quarter", "untrained_critic", ("untrained_critic", 1),
             variance=LATE_VARIANCE.fault - CLEARANCE, entropy=SURE_ENTROPY),
    Boundary("a healthy critic just over the line", "healthy", ("healthy", 1),
             variance=LATE_VARIANCE.healthy + CLEARANCE, entropy=SURE_ENTROPY),
    Boundary("a healthy critic that learned late", "healthy", ("healthy", 1), variance=SURE_VARIANCE,
             whole_variance=LATE_VARIANCE.fault - CLEARANCE, entropy=SURE_ENTROPY),
    Boundary("a small buffer that spikes in one late update", "small_replay_buffer", ("small_replay_buffer", 1),
             spike=LATE_TD.fault + CLEARANCE),
    Boundary("a healthy DQN with a loud first third", "healthy", ("healthy", 2), loud_start=LATE_TD.fault + CLEARANCE),
    # Added later, so ``plan`` draws its place after the others' order: a TD error read against Q-values of other
    # updates than its own (the log's first and last, as a boolean mask minus one indexes) drowns the late spike.
    Boundary("a small buffer whose first and last Q-values are far larger", "small_replay_buffer",
             ("small_replay_buffer", 1), spike=LATE_TD.fault + CLEARANCE, far_ends=100.0),
]
FIRST_DRAWN = 8  # the logs whose order ``plan`` draws first, as it did before any log was added


def plan(seed: int, secret: str | None = None) -> list[Boundary]:
    """The boundary logs of ``seed`` in the order the child sees them, shuffled by the seed and the course secret:
    the first ``FIRST_DRAWN`` in the order drawn first, as before any log was added, then each added log put at a place
    drawn after (so their order is as it was, and no log's place is fixed)."""
    rng = np.random.default_rng([seed, 15_077, *run_plan.secret_words(secret)])
    order = list(rng.permutation(FIRST_DRAWN))
    for added in range(FIRST_DRAWN, len(BOUNDARIES)):
        order.insert(int(rng.integers(len(order) + 1)), added)
    return [BOUNDARIES[i] for i in order]


def build(boundary: Boundary, base: dict) -> dict:
    """``base`` (a fresh run's log) with the statistics ``boundary`` names set."""
    log = {key: np.array(value, copy=True) for key, value in base.items()}
    if "logits" in log:
        set_entropy(log, boundary.entropy)
        set_late_variance(log, boundary.variance)
        if boundary.whole_variance is not None:
            set_whole_variance(log, boundary.whole_variance)
    if boundary.far_ends is not None:
        raise_far_ends(log, boundary.far_ends)
    if boundary.spike is not None:
        set_spike(log, boundary.spike)
    if boundary.loud_start is not None:
        set_loud_start(log, boundary.loud_start)
    if "q_values" in log:
        balance_signs(log)
    return log


# ------------------------------------------------------------------------------------------------ policy and critic


def set_entropy(log: dict, target: float) -> None:
    """Scale each update's logits so that its rows' mean entropy is ``target`` (bisection on the log of the scale:
    a row's entropy falls as its logits are stretched)."""
    for u in np.unique(log["update"]):
        rows = log["update"] == u
        z = log["logits"][rows]
        z = z - z.mean(1, keepdims=True)
        low, high = -20.0, 20.0
        for _ in range(200):
            mid = (low + high) / 2
            if np.mean(oracle.entropy_nats(z * np.exp(mid))) > target:
                low = mid
            else:
                high = mid
        log["logits"][rows] = z * np.exp((low + high) / 2)


def set_late_variance(log: dict, target: float) -> None:
    """Scale every residual R - V by one factor so that the late half's explained variance is ``target``:
    Var(R - V') = c^2 Var(R - V), so c = sqrt((1 - target) / (1 - EV))."""
    c = np.sqrt((1 - target) / (1 - late_variance(log)))
    log["values"] = log["returns"] - c * (log["returns"] - log["values"])


def whole_variance(log: dict) -> float:
    return oracle.explained_variance(log["values"], log["returns"])


def set_whole_variance(log: dict, target: float) -> None:
    """Scale the early half's residuals R - V by one factor c so that the whole run's explained variance is ``target``
    (bisection on log c: the explained variance falls as c grows; the late half, and so its explained variance, is
    left as it is)."""
    early = ~late(log)
    residual = log["returns"][early] - log["values"][early]
    low, high = -20.0, 20.0
    for _ in range(200):
        mid = (low + high) / 2
        log["values"][early] = log["returns"][early] - np.exp(mid) * residual
        low, high = (mid, high) if whole_variance(log) > target else (low, mid)
    log["values"][early] = log["returns"][early] - np.exp((low + high) / 2) * residual


# ------------------------------------------------------------------------------------------------ the DQN


def taken_q(log: dict) -> np.ndarray:
    return log["q_values"][np.arange(len(log["actions"])), log["actions"]]


def relative(log: dict, rows: np.ndarray) -> float:
    return float(np.abs(log["td_errors"][rows]).mean() / np.abs(taken_q(log)[rows]).mean())


def set_relative(log: dict, rows: np.ndarray, target: float) -> None:
    log["td_errors"][rows] *= target / relative(log, rows)


def raise_far_ends(log: dict, times: float) -> None:
    """The Q-values of the log's first and last transitions shifted (every action alike, so the greedy one stays) until
    the taken one is ``times`` the log's mean |Q(s, a)|: read against them, an update's TD errors look small."""
    q = taken_q(log)
    target = times * np.abs(q).mean()
    for row in (0, len(q) - 1):
        log["q_values"][row] += target - q[row]


def set_spike(log: dict, spike: float) -> None:
    """One update of the last quarter (the one whose values weigh least) at ``spike``; every other update at one
    relative error chosen so that the late half pooled is QUIET, so pooling over any span drowns the spike."""
    updates = np.unique(log["update"])
    last = updates[updates >= np.quantile(updates, 0.75)]
    q = np.abs(taken_q(log))
    spiked = last[int(np.argmin([q[log["update"] == u].sum() for u in last]))]
    at, quiet = log["update"] == spiked, late(log) & (log["update"] != spiked)
    rest = max((QUIET * q[at | quiet].sum() - spike * q[at].sum()) / q[quiet].sum(), QUIET / 10)
    for u in updates:
        set_relative(log, log["update"] == u, spike if u == spiked else rest)


def balance_signs(log: dict) -> None:
    """Each update's TD errors signed so that they cancel: the largest first, each taking the sign of the side that is
    behind, then each side scaled to half the update's total size (which stays as set, and with it every statistic a
    README rule reads). A run's own signs differ from seed to seed, and a `diagnose` that averages TD errors with their
    sign labelled a log right on one seed and wrong on another; with the signs cancelling, it reads every update as
    quiet on every seed."""
    td = log["td_errors"]
    for u in np.unique(log["update"]):
        rows = np.flatnonzero(log["update"] == u)
        ahead = 0.0
        for row in rows[np.argsort(-np.abs(td[rows]), kind="stable")]:
            td[row] = abs(td[row]) * (-1.0 if ahead > 0 else 1.0)
            ahead += td[row]
        up, down = td[rows] > 0, td[rows] < 0
        total = np.abs(td[rows]).sum()
        if up.any() and down.any():
            td[rows[up]] *= total / 2 / td[rows[up]].sum()
            td[rows[down]] *= total / 2 / -td[rows[down]].sum()


def set_loud_start(log: dict, loud: float) -> None:
    """Every update after the first third exactly at QUIET (as loud as a healthy late update may be, on every seed);
    the first third's updates scaled together so that the whole log pooled is ``loud``."""
    q, n = np.abs(taken_q(log)), int(log["update"].max()) + 1
    first = log["update"] < n / 3
    for u in np.unique(log["update"][~first]):
        set_relative(log, log["update"] == u, QUIET)
    rest = np.abs(log["td_errors"][~first]).sum()
    log["td_errors"][first] *= (loud * q.sum() - rest) / np.abs(log["td_errors"][first]).sum()


# ------------------------------------------------------------------------------------------------ the bundle


LESSONS = {  # what each boundary log teaches when it is labelled wrong
    BOUNDARIES[0].name: "a mean entropy just above 0.25 nats is a confident policy, not a saturated one",
    BOUNDARIES[1].name: "a mean entropy just under 0.1 nats is a saturated policy",
    BOUNDARIES[2].name: "read the policy first: once the entropy has collapsed, the fault is the policy's",
    BOUNDARIES[3].name: "a critic that explains just under a quarter of the returns' variance late in training is "
                        "untrained",
    BOUNDARIES[4].name: "a critic that explains just over 0.4 of the returns' variance late in training is learning",
    BOUNDARIES[5].name: "a critic is judged late in training: one that explains little early on and much in the late "
                        "half is learning",
    BOUNDARIES[6].name: "one late update over 0.08 of its mean |Q| is a small buffer's spike, though the late half "
                        "pooled stays under 0.05: look update by update",
    BOUNDARIES[7].name: "a DQN's first updates are loud while it learns; its late ones (each under 0.05 of |Q| here) "
                        "tell",
    BOUNDARIES[8].name: "an update's TD errors are measured against that update's own Q-values, not against the log's "
                        "first and last",
}


def boundary_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s boundary logs in ``plan`` order, built from its fresh runs and kept beside them
    in the run cache (made again whenever they are trained again, or this code changes)."""
    def built(runs: list, logs: list[dict]) -> list[dict]:
        base = {(run.label, run.severity): log for run, log in zip(runs, logs)}
        return [build(b, base[b.base]) for b in plan(seed, secret)]

    return fresh.kept_beside(seed, secret, f"boundary_{built_by()}", built, len(BOUNDARIES))


def built_by() -> str:
    """A digest of the code that builds the logs and the lines it builds them to: a bundle built by other code is
    never read."""
    here = Path(__file__).resolve()
    return hashlib.sha256(here.read_bytes() + here.with_name("lines.py").read_bytes()).hexdigest()[:12]
