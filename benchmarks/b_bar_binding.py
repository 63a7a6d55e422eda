"""Benchmark: B.bar's binding of the grader's own runs to the folder's pieces, and how many updates its sample needs.

    .venv/bin/python -m benchmarks.b_bar_binding [--seeds 101,102,103] [--only NAME] [--sizes 1,2,4,8,16]

Trains the grader's runs as B.bar does (``bar_runs``: the judge's recipe, course.yml's B.bar budget and
hyperparameters) of the settings the reference's ``ablated()`` grades, on each seed, keeping the state before and
after every update. For each implementation (the reference, the two correct rewrites of ``b_proof_of_learning.py``,
the buggy pieces and the planted bugs of Project B's pieces that ``b_table_binding.py`` measures), makes every update
of every run again with its pieces as B.bar's child makes its sample (``bar_runs.remade_run``: the first from the
pieces' own init, each other from the run's state before it) and prints per run the largest gaps (a weight; Adam's
moments on their own scale, as the judge measures them) and at how many updates the pieces depart beyond course.yml's
tolerances, an update the judge settles by taking a term on the clip's edge the other way (``bar_runs.settles``)
not counted. Then, per sample size k, the chance that a submission with these pieces keeps B.bar: every run it grades
escapes when none of its departing updates is in its sample, drawn as ``bar_runs.sampled_updates`` draws it (the
first update and k - 1 others, no two adjacent) from 10,000 random course keys.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.loader import load_course
from autograder.plan import planned
from autograder.projects._shared.ppo import reference_runs as sampled
from autograder.projects._shared.ppo.hyperparameters import course_config
from autograder.projects._shared.proof import decode
from autograder.projects.b_ablations import bar_runs, oracle, proofs
from autograder.projects.b_ablations.public.settings import student_details
from benchmarks.b_proof_of_learning import IMPLEMENTATIONS, folder_of
from benchmarks.b_table_binding import BUGGY
from capstone_check.student import Student
from rlkit.runproof import m_gaps, v_gaps

SETTINGS = ["baseline", "normalize_advantages", "clip_value_loss", "orthogonal_init", "anneal_lr", "multiple_epochs"]
KEYS = 10_000


def grader_run(bar, setting: str, seed: int) -> dict:
    """The grader's run of ``setting`` on ``seed`` with every update's state before and after, as ``made_updates``
    follows it."""
    n = bar.n_updates
    recipe = bar_runs.grader_recipe(bar.hyperparameters.model_dump(), setting, n)
    entry, made = sampled.recorded_run(recipe, seed, bar.model_dump(), list(range(n)), n)
    shape = (n, bar.n_steps, bar.num_envs)
    actions = np.unpackbits(made["actions"])[:int(np.prod(shape))].reshape(shape)
    return {**entry, "updates": list(range(n)), "before": made["before"], "after": made["after"], "actions": actions}


def gaps(student, run: dict, setting: str, seed: int, bar) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(per update, the largest gap a weight; the largest gap of Adam's moments on their own scale; the states the
    pieces made) of the pieces' re-make of every update of ``run``; inf where an update could not be made or
    compared."""
    recipe = proofs.student_recipe(student, course_config(student, bar.hyperparameters),
                                   student_details(student, proofs.details_of(setting)), bar.n_updates)
    made = bar_runs.remade_run(recipe, run, seed, bar.model_dump())
    size, n = run["before"].shape[1] // 3, bar.n_updates
    weights, moments = np.full(n, np.inf), np.full(n, np.inf)
    if "after" not in made:  # an action sampled otherwise: from that update on, nothing lands
        return weights, moments, None
    eps = oracle.adam_eps(bar.hyperparameters.model_dump(), proofs.details_of(setting))
    mine = decode(made["after"], run["after"].shape).astype(float)
    want = run["after"].astype(float)
    weights = np.nan_to_num(np.abs(mine[:, :size] - want[:, :size]), nan=np.inf).max(axis=1)
    m = m_gaps(mine[:, size:2 * size], want[:, size:2 * size], want[:, 2 * size:], eps)
    v = v_gaps(mine[:, 2 * size:], want[:, 2 * size:], eps)
    return weights, np.maximum(m.max(axis=1), v.max(axis=1)), mine


def settles(mine: np.ndarray, k: int, run: dict, setting: str, seed: int, bar) -> bool:
    """``bar_runs.settles`` for update ``k`` of a run held whole: whether the judge, taking a term on the clip's edge
    the other way, lands where the pieces did."""
    arrays = {f"{setting}.before": run["before"], f"{setting}.actions": np.packbits(run["actions"])}
    return bar_runs.settles(mine, k, run, arrays, setting, seed, bar)


def escape_chance(departing: list[np.ndarray], n: int, k: int) -> float:
    """The share of random keys under which no departing update of any run is in its sample (one draw per run)."""
    if any(bad[0] for bad in departing):  # the first update is in every sample
        return 0.0
    rng, kept = np.random.default_rng(0), 0
    for _ in range(KEYS):
        key = rng.bytes(16).hex()
        kept += all(not bad[bar_runs.sampled_updates(key, i, "run", n, k)].any() for i, bad in enumerate(departing))
    return kept / KEYS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101,102,103")
    parser.add_argument("--only", action="append", help="an implementation's name (repeatable); default: all")
    parser.add_argument("--sizes", default="1,2,4,8,16")
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    bar = planned(course, "B", "B.bar", "grading").context.bar
    seeds, sizes = [int(s) for s in args.seeds.split(",")], [int(k) for k in args.sizes.split(",")]
    runs = {(setting, seed): grader_run(bar, setting, seed) for setting in SETTINGS for seed in seeds}
    where, summary = Path(tempfile.mkdtemp()), []
    for i, (name, edits) in enumerate({**IMPLEMENTATIONS, **BUGGY}.items()):
        if args.only and name not in args.only:
            continue
        student, departing, largest = Student(folder_of(edits, where / str(i)), ("ppo", "details", "ablation")), [], []
        for (setting, seed), run in runs.items():
            weights, moments, mine = gaps(student, run, setting, seed, bar)
            bad = (weights > bar.replay_tolerance) | (moments > bar.moment_tolerance)
            settled = [k for k in np.flatnonzero(bad)
                       if mine is not None and settles(mine[k], k, run, setting, seed, bar)]
            bad[settled] = False
            departing.append(bad)
            largest.append((weights.max(), moments.max()))
            print(f"  {name}: {setting}, seed {seed}: largest gaps {weights.max():.3g} a weight, {moments.max():.3g} "
                  f"on Adam's scale; departs at {int(bad.sum())} of {len(bad)} updates"
                  f"{f' ({len(settled)} more settled on the clip edge)' if settled else ''}"
                  f"{' (the first among them)' if bad[0] else ''}", flush=True)
        chance = {k: escape_chance([d for d in departing if d.any()], bar.n_updates, k) for k in sizes}
        summary.append((name, name in IMPLEMENTATIONS, sum(d.any() for d in departing), len(departing),
                        any(d[0] for d in departing), max(w for w, _ in largest), max(m for _, m in largest), chance))
    print("\nimplementation | runs departing | the first update departs | largest gaps (weight, moments) | "
          "chance the submission keeps B.bar, per k")
    for name, correct, bad, total, first, weight, moment, chance in summary:
        print(f"{'(correct) ' if correct else ''}{name} | {bad} of {total} | {'yes' if first else 'no'} | "
              f"{weight:.3g}, {moment:.3g} | " + ", ".join(f"k={k}: {p:.3g}" for k, p in chance.items()), flush=True)
    shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
