"""Fresh runs shaped to the edges: what C.fresh_runs labels. Each run of a seed keeps its shape (its logits' spread
within an update, its critic's residuals, its Q-values and the size of each TD error relative to its update's
others), and every statistic a rule of the README reads is set, in every update, to its label's edge
(``lines.EDGES``): the mildest fault, the most fault-like healthy run the course grades.

- a policy's mean entropy, in every update: at the fault side for a saturated policy, else at the healthy side;
- its critic's explained variance over the late half: at the fault side for an untrained critic, else at the healthy
  side (a saturated policy's critic is sound: one fault per run), every residual R - V scaled by one factor;
- a DQN's mean |TD error| / mean |Q(s, a)|, in every update: at the fault side for a small buffer, else at the
  healthy side, with each update's TD errors signed so that they cancel.

Real runs put these statistics wherever their seed's training took them, and a `diagnose` that reads one of them
in a way the README does not (a line between the course's and the runs', the critic before the policy, TD errors
pooled over the log or averaged with their sign) labelled some seeds' runs right and others' wrong: its grade turned
on the draw of grading seeds. Shaped, such a `diagnose` labels every run of a kind alike on every seed
(docs/design-notes.md, "C.fresh_runs labels runs shaped to the edges").
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from autograder.projects.c_diagnosis import boundary, fresh, run_plan
from autograder.projects.c_diagnosis.lines import EDGES, Gap

HAIR = 1e-9  # how far past its edge a statistic is set


def shaped(label: str, log: dict) -> dict:
    """``log`` (a fresh run of ``label``) with every statistic a README rule reads set to its label's edge."""
    out = {key: np.array(value, copy=True) for key, value in log.items()}
    side = "healthy" if label == "healthy" else "fault"
    if "q_values" in out:
        for update in np.unique(out["update"]):
            boundary.set_relative(out, out["update"] == update, past(EDGES.td, side))
        boundary.balance_signs(out)
        return out
    boundary.set_entropy(out, past(EDGES.entropy, "fault" if label == "saturated_policy" else "healthy"))
    boundary.set_late_variance(out, past(EDGES.variance, "fault" if label == "untrained_critic" else "healthy"))
    return out


def past(gap: Gap, side: str) -> float:
    """The edge of ``gap`` on ``side`` ("fault" or "healthy"), a hair away from the other side: rounding never puts a
    shaped run inside the gap it bounds."""
    edge, other = (gap.fault, gap.healthy) if side == "fault" else (gap.healthy, gap.fault)
    return edge + HAIR * np.sign(edge - other)


def shaped_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s fresh runs shaped to their edges, in plan order, kept beside the runs in the
    run cache (made again whenever they are trained again, or this code changes)."""
    return fresh.kept_beside(seed, secret, f"edges_{built_by()}",
                             lambda plan, logs: [shaped(run.label, log) for run, log in zip(plan, logs)],
                             len(run_plan.AGENTS))


def built_by() -> str:
    """A digest of the code that shapes the runs and the edges it shapes them to."""
    here = Path(__file__).resolve()
    return hashlib.sha256(b"".join(here.with_name(name).read_bytes()
                                   for name in ("edges.py", "boundary.py", "lines.py"))).hexdigest()[:12]


def write_student_set(folder, key: int) -> list[Path]:
    """Train the three runs of the set ``key`` decides, shaped as the fresh runs are (``my_labels`` is graded on them
    as ``diagnose`` is on the fresh runs), and save them as ``folder/<name>.npz``; return the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, run in run_plan.student_set(key).items():
        np.savez_compressed(folder / f"{name}.npz", **shaped(run.label, run_plan.generate(run)))
        paths.append(folder / f"{name}.npz")
    return paths
