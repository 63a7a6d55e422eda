"""Project A's report figure: each seed's learning curve, the 450 bar, and the reference's band."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from autograder.projects.a_ppo.training import Bar450
from autograder.report.figures import figure, png, series

REFERENCE_BAND = Path(__file__).with_name("reference_band.json")


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes | None]]:
    """``reference``: the reference's details on the same seeds, drawn dashed beneath (the TA's compare view), also
    when the submission's own A.bar gave nothing to draw."""
    bar, theirs = (Bar450.Details.drawn(d.get(Bar450.id)) for d in (details, reference or {}))
    if not bar and not theirs:
        return []
    fig, ax = figure()
    if REFERENCE_BAND.exists():
        band = json.loads(REFERENCE_BAND.read_text())
        x = np.arange(1, len(band["low"]) + 1)
        ax.fill_between(x, band["low"], band["high"], color="gray", alpha=0.25,
                        label=f"reference, {band['seeds']} seeds (min to max)")
    for i, curve in enumerate(theirs and theirs.curves or []):
        y = series(curve)
        ax.plot(np.arange(1, len(y) + 1), y, "--", color="black", lw=0.8, alpha=0.6,
                label="the reference, same seeds" if i == 0 else None)
    evaluated = series(bar and bar.evaluated)
    for i, curve in enumerate(bar and bar.curves or []):
        y = series(curve)
        ax.plot(np.arange(1, len(y) + 1), y, ".-", ms=3, label=run_label(i, len(y), evaluated, bar.departed))
    threshold = (bar or theirs).threshold
    if threshold is not None:
        ax.axhline(threshold, ls="--", color="tab:red", lw=1, label=f"bar: {threshold:g}")
    ax.set(xlabel="update", ylabel="mean return of episodes ending in the update", ylim=(0, 520))
    ax.legend(loc="lower right", fontsize="small")
    caption = "Learning curves on CartPole-v1 (returns recorded by the grader's environments)"
    if not bar:
        caption += "; the submission's A.bar gave no curves to draw (its row says why): the reference's alone"
    return [(caption, png(fig))]


def run_label(i: int, updates: int, evaluated, departed=None) -> str:
    """A run's legend: how long its curve is, and what the grader's own evaluation of its final policy scored (a
    return, never a number of updates); for a run the replay did not credit, the update that did not follow (its
    policy was never evaluated, so no return is shown)."""
    update = departed[i] if isinstance(departed, list) and i < len(departed) else None
    if isinstance(update, int):
        return f"your run {i + 1}: not credited: update {update} did not follow from your pieces"
    score = f"{evaluated[i]:.0f}" if i < len(evaluated) else "none"
    return f"your run {i + 1}: {updates} update{'s' * (updates != 1)}, final policy's return {score}"
