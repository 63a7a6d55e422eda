"""Project C's report figure: the diagnostics panel of every fresh run, with the student's label and the truth."""

from __future__ import annotations

import numpy as np

from autograder.report.figures import png

# which series each column draws, for a policy-gradient log and for a value-based one
COLUMNS = [("return", "return"), ("entropy", "TD error / |Q|"), ("explained variance", "Q / MC return"),
           ("approx KL", "share of Q above 1/(1-gamma)")]


def plain_figure(width: float, height: float):
    """A figure with fixed margins: a constrained layout of 32 small axes costs seconds, fixed margins nothing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.figure(figsize=(width, height))


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes]]:
    fresh = details.get("C.fresh_runs")
    if not fresh or not fresh.get("runs"):
        return []
    shown = fresh["runs"]
    per_figure = 8
    out = []
    for start in range(0, len(shown), per_figure):
        group = shown[start:start + per_figure]
        fig = plain_figure(11, 1.6 * len(group) + 0.6)
        grid = fig.subplots(len(group), len(COLUMNS), squeeze=False)
        fig.subplots_adjust(left=0.06, right=0.99, top=1 - 0.45 / fig.get_figheight(), bottom=0.03, hspace=0.9,
                            wspace=0.25)
        for row, run in zip(grid, group):
            panel, value_based = run["panel"], "TD error / |Q|" in run["panel"]
            for ax, (ppo_key, dqn_key) in zip(row, COLUMNS):
                key = dqn_key if value_based else ppo_key
                y = np.array([np.nan if v is None else v for v in panel.get(key, [])], dtype=float)
                x = np.arange(len(y)) if key == "return" else np.array(panel["updates"])[:len(y)]
                ax.plot(x, y, ".-", ms=2, lw=1)
                ax.set_title(key, fontsize=7)
                ax.locator_params(nbins=3)  # ticks are most of the drawing time of so many small axes
                ax.tick_params(labelsize=6)
            right = run["label"] == run["truth"]
            row[0].set_ylabel(f"run {run['run']}", fontsize=7)
            row[0].annotate(f"you: {run['label']}  |  truth: {run['truth']} (severity {run['severity']})"
                            + ("" if right else "  ✗"), (0, 1.25), xycoords="axes fraction", fontsize=7,
                            color="black" if right else "tab:red")
        out.append((f"Diagnostics of the fresh runs {start + 1}-{start + len(group)} (x: update), your label and the "
                    "truth", png(fig)))
    return out
