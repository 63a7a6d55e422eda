"""C's `diagnose` as its README states it, with each threshold anywhere inside its gap: what every graded log must be
labelled right by."""

import numpy as np

from autograder.projects.c_diagnosis import lines as c_lines
from autograder.projects.c_diagnosis import oracle as c_oracle


def readme_faithful_label(log: dict, place: float, inclusive: bool) -> str:
    """diagnose as C's README states it, with each threshold at ``place`` along its gap (0: the fault's line, 1: the
    healthy line), taken with ``<=`` (``inclusive``) or ``<`` on the fault's side."""
    def faulty(value, gap, above: bool) -> bool:
        line = gap.fault + place * (gap.healthy - gap.fault)
        value, line = (value, line) if above else (-value, -line)
        return value >= line if inclusive else value > line

    if "q_values" in log:
        return "small_replay_buffer" if faulty(c_lines.worst_late_td(log), c_lines.LATE_TD, True) else "healthy"
    if faulty(float(np.mean(c_oracle.entropy_nats(log["logits"]))), c_lines.ENTROPY, False):
        return "saturated_policy"
    return "untrained_critic" if faulty(c_lines.late_variance(log), c_lines.LATE_VARIANCE, False) else "healthy"


def readme_faithful_variants():
    return [(place, inclusive) for place in (0.0, 0.5, 1.0) for inclusive in (True, False)]
