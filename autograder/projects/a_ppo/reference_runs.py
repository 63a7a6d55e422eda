"""The reference's own runs on the public seeds, released with the students' checker so that it can tell whether a
student's pieces remake them (``_shared.public.ppo_remade``): what A.bar's final grading turns on, told without
releasing the reference's pieces.

Each run is the kit's loop with the reference's pieces (the judge's recipe), as the checker's training makes it,
sampled at ``SAMPLED`` updates as ``_shared.ppo.reference_runs`` records them.
"""

from __future__ import annotations

from autograder.projects._shared.ppo import reference_runs as sampled
from autograder.projects.a_ppo.training import reference_recipe

SAMPLED = 10  # updates per run: a piece that departs where training reaches departs at most of a run's updates
FILE = "A.bar.npz"


def sampled_updates(n_updates: int) -> list[int]:
    """``SAMPLED`` updates spread evenly over the run, the first and the last among them."""
    return sampled.sampled_updates(n_updates, SAMPLED)


def reference_runs(bar: dict, seeds: list[int]) -> dict:
    """A.bar's spec entries for the checker: ``reference_runs`` (the file, the sampled updates, each seed's step
    counts and random states) and ``_files`` (the arrays, written beside the expected values)."""
    updates, seeds_spec, arrays = sampled_updates(bar["n_updates"]), {}, {}
    for seed in seeds:
        reference = reference_recipe(bar["hyperparameters"], bar["n_updates"])
        seeds_spec[str(seed)], made = sampled.recorded_run(reference, seed, bar, updates)
        arrays.update({f"{seed}.{name}": array for name, array in made.items()})
    return {"reference_runs": {"file": FILE, "updates": updates, "seeds": seeds_spec}, "_files": {FILE: arrays}}
