"""The lines of C's README, in one place: each rule names a fault on one side of a gap and allows health on the
other; a log whose statistic lies inside a gap is not graded for that rule, and no log the grader builds lies within
``CLEARANCE`` of a line (so ``<`` and ``<=`` at a line, or any threshold inside a gap, give the same labels).

The README states these numbers in bold; ``tests/test_readme_lines.py`` reads them from there and compares."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from autograder.projects.c_diagnosis import oracle


class Gap(NamedTuple):
    fault: float  # at or beyond this (below it for entropy and explained variance, above it for TD errors): the fault
    healthy: float  # at or beyond this on the other side: may be healthy

    def inside(self, value: float) -> bool:
        low, high = sorted((self.fault, self.healthy))
        return low < value < high


ENTROPY = Gap(fault=0.1, healthy=0.25)  # mean policy entropy, nats
LATE_VARIANCE = Gap(fault=0.25, healthy=0.4)  # explained variance of the late half
LATE_TD = Gap(fault=0.08, healthy=0.05)  # the largest late update's mean |TD error| / mean |Q(s, a)|
CLEARANCE = 0.005  # the least distance from a line of every statistic a graded log is built to


class Lines(NamedTuple):
    entropy: Gap
    variance: Gap
    td: Gap


README_LINES = Lines(ENTROPY, LATE_VARIANCE, LATE_TD)
# Where the fresh runs final grading labels stop: a fresh run between a README line and its edge here is left out, as
# one inside a gap is. Every graded run of a label is then at least as far from the lines as the students' kit's logs
# at the edges (``edges.py``), so a `diagnose` that labels those right labels every graded run of the label right,
# whichever runs a grading seed draws. Beyond every run of 50 seeds (docs/benchmarks.md, "The fresh runs' edges").
EDGES = Lines(entropy=Gap(fault=0.09, healthy=0.5), variance=Gap(fault=0.1, healthy=0.45),
              td=Gap(fault=0.09, healthy=0.045))


def late(log: dict) -> np.ndarray:
    return log["update"] >= (log["update"].max() + 1) / 2


def late_variance(log: dict) -> float:
    m = late(log)
    return oracle.explained_variance(log["values"][m], log["returns"][m])


def worst_late_td(log: dict) -> float:
    q = np.abs(log["q_values"][np.arange(len(log["actions"])), log["actions"]])
    td, rows = np.abs(log["td_errors"]), late(log)
    return max(float(td[m].mean() / q[m].mean()) for u in np.unique(log["update"][rows])
               for m in [log["update"] == u])


def deciding_statistic(log: dict, lines: Lines = README_LINES) -> tuple[Gap, float]:
    """The statistic whose rule decides ``log``'s label by the README (or by ``lines``), with that rule's gap: a DQN's
    worst late update; a policy's mean entropy unless it is healthy, then its critic's late explained variance."""
    if "q_values" in log:
        return lines.td, worst_late_td(log)
    entropy = float(np.mean(oracle.entropy_nats(log["logits"])))
    if entropy < lines.entropy.healthy:
        return lines.entropy, entropy
    return lines.variance, late_variance(log)


def in_a_gap(log: dict, lines: Lines = README_LINES) -> bool:
    """Whether the README leaves ``log``'s label open: its deciding statistic lies strictly between two lines."""
    gap, value = deciding_statistic(log, lines)
    return gap.inside(value)


FAULT_OF = {ENTROPY: "saturated_policy", LATE_VARIANCE: "untrained_critic", LATE_TD: "small_replay_buffer"}


def readme_label(log: dict) -> str | None:
    """The label the README's lines give ``log``, or None where its deciding statistic lies inside a gap."""
    gap, value = deciding_statistic(log)
    if gap.inside(value):
        return None
    at_fault = value >= gap.fault if gap.fault > gap.healthy else value <= gap.fault
    return FAULT_OF[gap] if at_fault else "healthy"


def graded_fresh(log: dict, truth: str | None = None) -> bool:
    """Whether final grading labels a fresh run: its deciding statistic lies at or beyond its side's edge
    (``EDGES``, which hold every README gap), and, given the run's ``truth``, the README's lines give it that label.
    A run trained healthy whose critic happens to explain under a tenth of the late variance is an untrained critic
    by every line the README states: a right ``diagnose`` says so, so the run tells nothing and is not graded."""
    return not in_a_gap(log, EDGES) and (truth is None or readme_label(log) == truth)
