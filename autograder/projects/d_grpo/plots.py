"""Project D's report figures, drawn from the checks' details: the K-sweep and the beta frontier."""

from __future__ import annotations

import numpy as np

from autograder.projects.d_grpo.sweeps import BetaSweep, ChapterTables, KSweep
from autograder.report.figures import figure, png, series


def plots(details: dict, reference: dict | None = None) -> list[tuple[str, bytes | None]]:
    """``details`` maps each graded check's id to its details (empty when the check did not run to a verdict);
    ``reference``, the same for the reference on the same seeds, is drawn beneath (the TA's compare view). A figure
    with nothing of the submission's to draw says so in a note, with the reference's alone when there is one."""
    out, reference = [], reference or {}
    tables, sweep, betas = (check.Details.drawn(details.get(check.id)) for check in (ChapterTables, KSweep, BetaSweep))
    their_tables, their_sweep = (check.Details.drawn(reference.get(check.id)) for check in (ChapterTables, KSweep))
    for caption, ours, theirs, draw, sources in (
            ("K-sweep: success at a matched budget of 6400 responses per prompt", tables or sweep, their_sweep,
             lambda: _k_sweep(tables, sweep, their_sweep), ("D.k_sweep", "D.chapter_tables")),
            ("Beta frontier against the sloppy grader", tables or betas, their_tables,
             lambda: _beta_frontier(tables, betas, their_tables), ("D.beta_sweep", "D.chapter_tables"))):
        graded = " or ".join(c for c in sources if c in details)
        if ours or theirs:
            mine = "" if ours else f"; the reference's alone: {NOTHING.format(graded or ' or '.join(sources))}"
            out.append((caption + mine, draw()))
        elif graded:  # graded, and nothing to draw: say why there is no figure
            out.append((f"No figure of the {caption.split(':')[0]}: {NOTHING.format(graded)}", None))
    return out


NOTHING = "{} gave no results to draw (the check's row says why)"


def _k_sweep(tables: ChapterTables.Details | None, sweep: KSweep.Details | None,
             reference_sweep: KSweep.Details | None) -> bytes:
    """The student's K-sweep on fresh seeds and the chapter's table (seed 1) as reproduced, over the reference's."""
    fig, ax = figure()
    for i, run in enumerate(reference_sweep and reference_sweep.success or []):
        ax.plot(reference_sweep.ks, run, "--", color="black", lw=0.8, alpha=0.6,
                label="the reference, same seeds" if i == 0 else None)
    if sweep:
        runs = np.array(sweep.success)
        for i, run in enumerate(runs):
            ax.plot(sweep.ks, run, "o-", color="tab:blue", alpha=0.5,
                    label="your runs, fresh seeds" if i == 0 else None)
    if tables:
        ax.plot(tables.ks, tables.k_chapter, "s", ms=10, mfc="none", color="k", label="the chapter (seed 1)")
        ax.plot(tables.ks, tables.k_success, "x", ms=8, color="tab:red", label="yours (seed 1)")
    ax.axhline(0.5, ls="--", color="gray", lw=1)
    ax.axhline(0.0624, ls=":", color="gray", lw=1)
    ax.set(xscale="log", xlim=(0.8, 40), xlabel="group size K", ylabel="success of a sampled response", ylim=(0, 0.55))
    ax.set_xticks([1, 2, 4, 8, 32], ["1", "2", "4", "8", "32"])
    ax.legend(loc="lower right")
    return png(fig)


def _beta_frontier(tables: ChapterTables.Details | None, betas: BetaSweep.Details | None,
                   reference_tables: ChapterTables.Details | None) -> bytes:
    """The chapter's table (seed 2) as the student reproduced it, the mean over fresh seeds of D.beta_sweep, the
    chapter's own rows as squares, and the reference's rows dashed beneath."""
    fig, ax = figure()
    if reference_tables:
        lines = ax.plot(reference_tables.betas, triples(reference_tables.beta_rows), "--", color="black",
                        lw=0.8, alpha=0.6)
        lines[0].set_label("the reference (dashed)")
    chapter = tables or reference_tables
    for j, (label, color) in enumerate([("sloppy score", "tab:orange"), ("exact score", "tab:green"),
                                        ("hedge probability", "tab:purple")]):
        if tables:
            ax.plot(tables.betas, triples(tables.beta_rows)[:, j], "o-", color=color,
                    label=f"{label} (yours, seed 2)")
        if betas:
            ax.plot(betas.betas, triples(betas.mean_rows)[:, j], "^:", color=color,
                    label=f"{label} (yours, fresh seeds' mean)")
        if chapter:
            ax.plot(chapter.betas, triples(chapter.beta_chapter)[:, j], "s", ms=9, mfc="none", color=color)
    ax.axvline(0.25, ls="--", color="gray", lw=1)
    ax.text(0.255, 0.9, "beta = 1/4", color="gray")
    ax.set(xlabel="KL coefficient beta", ylabel="score / probability", ylim=(0, 1.05))
    ax.legend(loc="upper right", fontsize="small", title="squares: the chapter", title_fontsize="small")
    return png(fig)


def triples(rows) -> np.ndarray:
    """Rows of (sloppy, gold, hedge) as an (n, 3) array; a row that is not three finite numbers is a gap."""
    rows = rows if isinstance(rows, list) else []
    return np.array([series(row) if len(series(row)) == 3 else np.full(3, np.nan) for row in rows]).reshape(-1, 3)
