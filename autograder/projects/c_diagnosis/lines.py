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
# Where C.fresh_runs' runs are shaped to (``edges.py``): every statistic a rule reads set at its label's side here,
# beyond the README's gap by a fixed margin on every seed. Each edge lies where real runs of the label lie, beyond
# every run of 50 seeds but one healthy DQN at 0.046 (docs/benchmarks.md, "The fresh runs' edges").
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
