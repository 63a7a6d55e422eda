"""Project C's report figure: how ``diagnose`` labelled the fresh runs, as counts per true fault and label.

Counts only. The fresh runs are the same for every submission of a course, so a figure that drew each run (its
diagnostics, its place among the calls, its truth) would let a student match the runs their code was handed to their
faults and hard-code the answers; it would teach every classmate the report is shared with too.
"""

from __future__ import annotations

import numpy as np
from pydantic import ValidationError

from autograder.projects.c_diagnosis.labels import Count, FreshRuns
from autograder.report.figures import figure, png


def _table(counts: list) -> tuple[list[tuple[str, int]], list[str], np.ndarray]:
    """Rows (truth, severity), columns labels and the count in each cell, from the check's details."""
    cells: dict[tuple[tuple[str, int], str], int] = {}
    for item in counts if isinstance(counts, list) else []:
        try:
            count = Count.model_validate(item)
        except ValidationError:
            continue  # a malformed entry is left out; the figure is an aid, the score stands without it
        row, label = (count.truth, count.severity), count.label
        cells[row, label] = cells.get((row, label), 0) + count.runs
    rows = sorted({row for row, _ in cells})
    labels = sorted({label for _, label in cells} | {truth for truth, _ in rows})
    grid = np.zeros((len(rows), len(labels)), dtype=int)
    for (row, label), n in cells.items():
        grid[rows.index(row), labels.index(label)] = n
    return rows, labels, grid


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes]]:
    fresh = FreshRuns.Details.drawn(details.get(FreshRuns.id))
    rows, labels, grid = _table(fresh and fresh.counts)
    if not rows:
        return []
    fig, ax = figure(7.5, 0.45 * len(rows) + 1.6)
    ax.imshow(np.zeros_like(grid), cmap="Greys", vmin=0, vmax=1, aspect="auto")
    for i, (truth, _) in enumerate(rows):
        for j, label in enumerate(labels):
            if grid[i, j]:
                ax.text(j, i, str(grid[i, j]), ha="center", va="center", fontsize=9,
                        color="tab:green" if label == truth else "tab:red")
    ax.set_xticks(range(len(labels)), [label.replace("_", " ") for label in labels], fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{truth.replace('_', ' ')} ({severity})" for truth, severity in rows],
                  fontsize=8)
    ax.set_xlabel("your label")
    ax.set_ylabel("true fault (severity)")
    return [("How diagnose labelled the fresh runs: how many runs of each fault and severity (rows) got each label "
             "(columns); green is right, red is wrong. Which run was which is not shown.", png(fig))]
