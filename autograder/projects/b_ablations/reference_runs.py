"""The reference's own runs of every setting on the public seeds, released with the students' checker so that it can
tell whether a student's pieces remake them (``b_ablations.public.remade``): what B.table's and B.bar's final
grading turn on, told without releasing the reference's pieces.

Each run is the kit's loop with the judge's recipe for its setting (``proofs.reference_recipe``), as graded runs
train, recorded as ``_shared.ppo.reference_runs`` records a sample. The baseline, which every graded run set holds, is
sampled over the whole run (truncated episodes, which some pieces handle wrongly, come late); every other setting at
its first update alone, where a piece that acts only under that setting departs, so that the bundle stays small.
"""

from __future__ import annotations

from autograder.projects._shared.ppo import reference_runs as sampled
from autograder.projects.b_ablations import proofs
from autograder.projects.b_ablations.catalogue import DETAILS

BASELINE_SAMPLED = 6
FILE = "B.runs.npz"


def sampled_updates(setting: str, n_updates: int) -> list[int]:
    """The updates of a run of ``setting`` the bundle holds (indices from 0)."""
    return sampled.sampled_updates(n_updates, BASELINE_SAMPLED) if setting == "baseline" else [0]


def reference_runs(bar: dict, seeds: list[int]) -> dict:
    """The spec entries of B's probes: ``reference_runs`` (the file, and per run ``"<setting>.<seed>"`` its sampled
    updates, step counts and random states) and ``_files`` (the arrays, written beside the expected values)."""
    c, n, runs, arrays = bar["hyperparameters"], bar["n_updates"], {}, {}
    for setting in ["baseline", *DETAILS]:
        for seed in seeds:
            key, updates = f"{setting}.{seed}", sampled_updates(setting, n)
            entry, made = sampled.recorded_run(proofs.reference_recipe(c, proofs.details_of(setting), n), seed, bar,
                                               updates)
            runs[key] = {**entry, "updates": updates}
            arrays.update({f"{key}.{name}": array for name, array in made.items()})
    return {"reference_runs": {"file": FILE, "runs": runs}, "_files": {FILE: arrays}}
