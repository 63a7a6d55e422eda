"""Course figures that students and the grader draw alike (matplotlib, imported when a figure is asked for)."""

from __future__ import annotations

import numpy as np


def ablation_figure(scores: dict, named=(), reference: dict | None = None, ax=None):
    """One column per setting: its seeds as dots and its median as a bar; the baseline's seed spread (min to max) as
    a grey band across the plot; settings in ``named`` (the student's conclusion) marked in red. ``reference``, if
    given, is another ``{setting: scores}`` drawn as hollow markers beside each column (the TA's compare view)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
    names = list(scores)
    base = np.asarray(scores["baseline"], dtype=float)
    ax.axhspan(base.min(), base.max(), color="gray", alpha=0.25, label="baseline's seed spread")
    for x, name in enumerate(names):
        s = np.asarray(scores[name], dtype=float)
        color = "tab:red" if name in named else "tab:blue"
        ax.plot([x - 0.25, x + 0.25], [np.median(s)] * 2, color=color, lw=2.5,
                label="median (named factor)" if name in named and name == named[0] else None)
        ax.plot(np.full(len(s), x), s, "o", color=color, ms=5, alpha=0.8)
        if reference and name in reference:
            ax.plot(np.full(len(reference[name]), x + 0.3), reference[name], "o", mfc="none", color="black", ms=5,
                    label="reference, same seeds" if x == 0 else None)
    ax.set_xticks(range(len(names)), [n.replace("_", "\n") for n in names], fontsize="small")
    ax.set_ylabel("mean training return over the updates")
    ax.legend(loc="best", fontsize="small")
    return ax.figure
