"""Project A's report figure: each seed's learning curve, the 450 bar, and the reference's band."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from autograder.report.figures import figure, png, series

REFERENCE_BAND = Path(__file__).with_name("reference_band.json")


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes]]:
    """``reference``: the reference's details on the same seeds, drawn dashed beneath (the TA's compare view)."""
    bar = details.get("A.bar")
    if not bar:
        return []
    fig, ax = figure()
    if REFERENCE_BAND.exists():
        band = json.loads(REFERENCE_BAND.read_text())
        x = np.arange(1, len(band["low"]) + 1)
        ax.fill_between(x, band["low"], band["high"], color="gray", alpha=0.25,
                        label=f"reference, {band['seeds']} seeds (min to max)")
    for i, curve in enumerate((reference or {}).get("A.bar", {}).get("curves", [])):
        y = series(curve)
        ax.plot(np.arange(1, len(y) + 1), y, "--", color="black", lw=0.8, alpha=0.6,
                label="the reference, same seeds" if i == 0 else None)
    evaluated = series(bar.get("evaluated"))
    for i, curve in enumerate(bar["curves"]):
        y, score = series(curve), (f"{evaluated[i]:.0f}" if i < len(evaluated) else "none")
        ax.plot(np.arange(1, len(y) + 1), y, ".-", ms=3, label=f"your run {i + 1}: evaluated {score}")
    ax.axhline(bar["threshold"], ls="--", color="tab:red", lw=1, label=f"bar: {bar['threshold']:g}")
    ax.set(xlabel="update", ylabel="mean return of episodes ending in the update", ylim=(0, 520))
    ax.legend(loc="lower right", fontsize="small")
    return [("Learning curves on CartPole-v1 (returns recorded by the grader's environments)", png(fig))]
