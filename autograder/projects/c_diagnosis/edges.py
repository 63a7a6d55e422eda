"""Logs at the fresh runs' edges: each public fresh run moved, on every statistic its label is graded by, to the edge
of where final grading's fresh runs of that label lie (``lines.EDGES``): the mildest fault, the most fault-like
healthy run a grading seed's runs can show. The students' checker labels them to tell whether a `diagnose` that is
right on the public runs is right on every run a grading seed can draw (docs/design-notes.md, "C.fresh_runs is
predicted from the runs' edges").

Each log keeps its run's shape: one factor for all of a policy's logits, one for all of a critic's residuals R - V,
one for all of a DQN's TD errors; the statistic is set exactly, toward the line:

- a saturated policy's mean entropy at the edge's fault side;
- a healthy policy's or an untrained critic's mean entropy at the healthy side, then its critic's late explained
  variance at the side of its label;
- a DQN's largest late update (mean |TD error| / mean |Q|) at the side of its label.
"""

from __future__ import annotations

import numpy as np

from autograder.projects.c_diagnosis import oracle
from autograder.projects.c_diagnosis.boundary import set_late_variance
from autograder.projects.c_diagnosis.lines import EDGES, Gap, worst_late_td

HAIR = 1e-9  # how far past its edge a statistic is set


def at_the_edges(label: str, log: dict) -> dict:
    """``log`` (a fresh run of ``label``) with the statistics its label is graded by set to their edges."""
    out = {key: np.array(value, copy=True) for key, value in log.items()}
    side = "healthy" if label == "healthy" else "fault"
    if "q_values" in out:
        out["td_errors"] = out["td_errors"] * (past(EDGES.td, side) / worst_late_td(out))
        return out
    if label == "saturated_policy":
        scale_entropy(out, past(EDGES.entropy, "fault"))
        return out
    scale_entropy(out, past(EDGES.entropy, "healthy"))
    set_late_variance(out, past(EDGES.variance, side))
    return out


def moved_fields(label: str, log: dict) -> dict:
    """The fields of ``log`` that ``at_the_edges`` changes, as it sets them (the students' kit lays them over the
    run's log: the rest would be a second copy of it)."""
    moved = at_the_edges(label, log)
    return {key: value for key, value in moved.items() if not np.array_equal(value, log[key])}


def past(gap: Gap, side: str) -> float:
    """The edge of ``gap`` on ``side`` ("fault" or "healthy"), a hair away from the other side: rounding never puts a
    log at the edges inside the gap it bounds."""
    edge, other = (gap.fault, gap.healthy) if side == "fault" else (gap.healthy, gap.fault)
    return edge + HAIR * np.sign(edge - other)


def scale_entropy(log: dict, target: float) -> None:
    """Stretch every row's centred logits by one factor so that the log's mean entropy is ``target`` (bisection on
    the log of the factor: the entropy falls as the logits are stretched)."""
    z = log["logits"] - log["logits"].mean(1, keepdims=True)
    low, high = -20.0, 20.0
    for _ in range(64):  # 40 / 2**64: below a double's resolution
        mid = (low + high) / 2
        low, high = (mid, high) if np.mean(oracle.entropy_nats(z * np.exp(mid))) > target else (low, mid)
    log["logits"] = z * np.exp((low + high) / 2)
