"""Project B's report figure: the grader's re-run of the student's ablation, the named factors marked."""

from __future__ import annotations

import numpy as np

from autograder.projects.b_ablations.bar import AblationBar
from autograder.report.figures import figure, png, series
from rlkit.plots import ablation_figure


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes]]:
    """``reference``: the reference's details on the same seeds, drawn as hollow markers (the TA's compare view)."""
    bar, theirs = (AblationBar.Details.drawn(d.get(AblationBar.id)) for d in (details, reference or {}))
    if not bar or bar.scores is None:  # no scores: a run did not follow from the pieces, and nothing is drawn
        return []
    scores = {name: finite(values) for name, values in bar.scores.items()}
    if not len(scores.get("baseline", [])):
        return [("The grader's re-run of your ablation is not drawn: the baseline has no finite scores", None)]
    fig, ax = figure(7.5, 3.8)
    reference_scores = {name: finite(values) for name, values in (theirs and theirs.scores or {}).items()}
    ablation_figure(scores, bar.named, reference_scores or None, ax=ax)
    named = ", ".join(bar.named)
    return [(f"The grader's re-run of your ablation on {bar.seeds}: dots are seeds, bars medians, the band "
             f"the baseline's spread; your conclusion ({named}) in red", png(fig))]


def finite(values) -> np.ndarray:
    """A setting's seed scores that are finite numbers; the others are not drawn."""
    values = series(values)
    return values[np.isfinite(values)]
