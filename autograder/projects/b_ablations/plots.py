"""Project B's report figure: the grader's re-run of the student's ablation, the named factors marked."""

from __future__ import annotations

from autograder.report.figures import figure, png
from rlkit.plots import ablation_figure


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes]]:
    """``reference``: the reference's details on the same seeds, drawn as hollow markers (the TA's compare view)."""
    bar = details.get("B.bar")
    if not bar:
        return []
    fig, ax = figure(7.5, 3.8)
    ablation_figure(bar["scores"], bar["named"], (reference or {}).get("B.bar", {}).get("scores"), ax=ax)
    named = ", ".join(bar["named"])
    return [(f"The grader's re-run of your ablation on {bar['seeds']}: dots are seeds, bars medians, the band "
             f"the baseline's spread; your conclusion ({named}) in red", png(fig))]
