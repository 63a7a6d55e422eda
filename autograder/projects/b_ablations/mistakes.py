"""Project B's known mistakes: wrong variants of the statistics, computed by the grader on its own crafted scores,
and switches whose flipped outputs match a wrong configuration of the oracle (``autograder.findings``)."""

from __future__ import annotations

import numpy as np

from autograder.findings import Mistake, catalogue
from autograder.projects.b_ablations.catalogue import DETAILS


def summarize(scores: dict, centre=np.median, axis: int = 1) -> list:
    """The summary table as rows [name, centre, min, max], with the centre taken another way or over the other axis
    (``zip`` then pairs settings with seeds, as the planted mistake does)."""
    names = list(scores)
    table = np.array([scores[name] for name in names], dtype=float)
    centres = centre(table, axis=axis)
    return [[name, float(c), float(lo), float(hi)]
            for name, c, lo, hi in zip(names, centres, table.min(axis=1), table.max(axis=1))]


def matters(scores: dict, names: list[str], centre=np.median, strict=True, both_spreads=True) -> list[bool]:
    """The bar's verdict for each factor, with one of its parts changed."""
    out = []
    for name in names:
        spread = max(np.ptp(scores[name]), np.ptp(scores["baseline"])) if both_spreads else np.ptp(scores["baseline"])
        gap = abs(centre(scores[name]) - centre(scores["baseline"]))
        out.append(bool(gap > spread if strict else gap >= spread))
    return out


SUMMARY, SWITCHES = "B.summary", "B.switches"
MISTAKES = catalogue(
    Mistake("B.summary.metric-keeps-nan", SUMMARY, "your training score averages the updates in which no episode "
            "ended too, so their NaN makes it NaN", "training_score",
            lambda log: float(np.mean([entry["episode_return"] for entry in log]))),
    Mistake("B.summary.medians-over-settings", SUMMARY, "your summary takes each median across the settings "
            "instead of across one setting's seeds", "summarize", lambda scores: summarize(scores, axis=0)),
    Mistake("B.summary.means-for-medians", SUMMARY, "your summary reports each setting's mean where its median is "
            "asked for", "summarize", lambda scores: summarize(scores, centre=np.mean)),
    Mistake("B.summary.matters-on-means", SUMMARY, "your bar compares the settings' means instead of their medians",
            "matters", lambda scores, names: matters(scores, names, centre=np.mean)),
    Mistake("B.summary.matters-at-the-bar", SUMMARY, "your bar counts a gap equal to the seed spread as mattering; "
            "it must exceed it", "matters", lambda scores, names: matters(scores, names, strict=False)),
    Mistake("B.summary.matters-baseline-spread", SUMMARY, "your bar's seed spread is the baseline's alone, not the "
            "larger of the two settings'", "matters", lambda scores, names: matters(scores, names, both_spreads=False)),
    *[Mistake(f"B.switches.{name}-ignored", SWITCHES, f"your {name} switch changes nothing when it is flipped")
      for name in DETAILS],
    Mistake("B.switches.clip-also-drops-normalization", SWITCHES, "flipping your clip_gradients switch also turns "
            "advantage normalization off", None, {"clip_gradients": False, "normalize_advantages": False}),
    Mistake("B.switches.truncation-never-bootstraps", SWITCHES, "your advantages never bootstrap at a truncation, "
            "whatever bootstrap_truncation says"),
    Mistake("B.switches.adam-eps-fixed", SWITCHES, "your large Adam epsilon is fixed at 1e-5 instead of read from "
            "config.adam_eps", None, {"adam_eps": 1e-5}),
    Mistake("B.switches.value-clip-eps-fixed", SWITCHES, "your clipped value loss clips at 0.2 whatever "
            "config.clip_eps says", None, {"value_clip_eps": 0.2}),
    Mistake("B.switches.clip-eps-fixed", SWITCHES, "your update clips the surrogate at 0.2 whatever "
            "config.clip_eps says", None, {"clip_eps": 0.2}),
)
