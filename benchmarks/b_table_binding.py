"""Benchmark: B.table's binding of runs.npz to the folder's pieces, and how many updates its secret sample needs.

    .venv/bin/python -m benchmarks.b_table_binding [--runs PATH] [--seeds 7,8,9] [--only NAME] [--sizes 1,2,4]

For each implementation (the reference, the two correct rewrites of ``b_proof_of_learning.py``, the buggy pieces of
``tests/projects/b_ablations/test_proof_of_learning_b.py`` and the planted bugs of Project B's pieces) and each run of
``runs.npz`` (default: the reference's, made by its harness), re-makes every update with the implementation's pieces
as B.table's child does for its sample (``replay.remake``), replays it with the reference's from the same recorded
state as the judge does, and prints per run the largest gap per parameter and the largest relative gap on Adam's v,
without tolerances, and at how many updates the pieces depart (beyond course.yml's ``pieces_tolerance`` or
``pieces_moment_tolerance``). Then, per implementation and sample size k (the first update and k - 1 drawn from the
others), the chance that a copied table's runs escape the binding: exact, since a run escapes only when none of its
departing updates is drawn (a hypergeometric draw). A copied table is the reference's (the baseline and
``multiple_epochs`` on each seed) or, where that departs nowhere, the runs of every setting in which the pieces
depart. Budget and hyperparameters from course.yml's B.table.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from math import comb
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared import replay
from autograder.projects._shared.proof import parameters
from autograder.projects.b_ablations import proofs
from autograder.projects.b_ablations.student_runs import sampled_updates, skipped_update
from autograder.projects.b_ablations.public.settings import student_details
from autograder.projects._shared.ppo.hyperparameters import course_config
from capstone_check.student import Student
from benchmarks.b_proof_of_learning import IMPLEMENTATIONS, folder_of
from rlkit.runproof import load_runs, unpack
from tests.projects.b_ablations.mutants import MUTANTS
from tests.projects.b_ablations.test_proof_of_learning_b import BUGGY_PIECES

PIECES = ("details.py", "ppo.py")
BUGGY = {**{name: [edit] for name, edit in BUGGY_PIECES.items()},
         **{m.name: [(m.module, m.old, m.new)] for m in MUTANTS if m.module in PIECES}}
TABLE = ("baseline", "multiple_epochs")  # the settings of the reference's results table


def departures(student, proof: bytes, bar) -> tuple[np.ndarray, float, float, float, float]:
    """(per update, whether the pieces' re-make departs from the reference's replay; largest gap a weight; largest
    relative gap on v; seconds of the re-make of every update, as B.table's child made it before the sample; seconds
    of the binding as graded now: the child's re-make of course.yml's sample and the judge's ``bind``) of one
    recorded run."""
    header, snapshots, moments, actions = unpack(proof)
    c, name, seed, size = bar.hyperparameters.model_dump(), header["setting"], header["seed"], snapshots.shape[1]
    recipe = proofs.student_recipe(student, course_config(student, bar.hyperparameters),
                                   student_details(student, proofs.details_of(name)), bar.n_updates)
    started = time.perf_counter()
    every = list(range(bar.n_updates))
    remade = replay.remake(snapshots, actions, seed, recipe, moments, every, skipped_update(c, name))
    seconds = time.perf_counter() - started
    judge = np.full(remade.shape, np.nan)

    def keep(k, agent, optimizer):
        judge[k] = np.concatenate([parameters(agent), optimizer.v])

    reference = proofs.reference_recipe(c, proofs.details_of(name), bar.n_updates)
    replay.replay_run(snapshots, actions, seed, reference, moments, keep)
    started = time.perf_counter()
    only = sampled_updates("a key", name, seed, bar.n_updates, bar.remade_updates)
    sample = replay.remake(snapshots, actions, seed, recipe, moments, only, skipped_update(c, name))
    try:
        replay.bind(snapshots, actions, seed, reference, moments, dict(zip(only, sample)),
                    (bar.pieces_tolerance, bar.pieces_moment_tolerance), skipped_update(c, name))
    except replay.Departed:
        pass
    sampled = time.perf_counter() - started
    weight = np.nan_to_num(np.abs(judge[:, :size] - remade[:, :size]), nan=np.inf).max(axis=1)
    v = np.nan_to_num(np.abs(judge[:, size:] - remade[:, size:]) / (judge[:, size:] + 1e-10), nan=np.inf).max(axis=1)
    departs = (weight > bar.pieces_tolerance) | (v > bar.pieces_moment_tolerance)
    return departs, float(weight.max()), float(v.max()), seconds, sampled


def escapes(departs: np.ndarray, k: int) -> float:
    """The chance that a run departing at ``departs`` passes a sample of the first update and k - 1 of the others."""
    if departs[0]:
        return 0.0
    others, bad = len(departs) - 1, int(departs[1:].sum())
    drawn = min(k, len(departs)) - 1
    return comb(others - bad, drawn) / comb(others, drawn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=paths.SOLUTIONS / "B_ablations" / "runs.npz")
    parser.add_argument("--seeds", default="", help="comma-separated seeds (default: every run's)")
    parser.add_argument("--only", action="append", help="an implementation's name (repeatable); default: all")
    parser.add_argument("--sizes", default="1,2,3,4,6,8,12,60", help="sample sizes k to report")
    args = parser.parse_args()
    table = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.table"].bar
    bar = proofs.OwnReplayBar(**{name: table[name] for name in proofs.OwnReplayBar.model_fields if name in table})
    runs, sizes = load_runs(args.runs), [int(k) for k in args.sizes.split(",")]
    where = Path(tempfile.mkdtemp())
    summary = []
    for i, (name, edits) in enumerate({**IMPLEMENTATIONS, **BUGGY}.items()):
        if args.only and name not in args.only:
            continue
        student = Student(folder_of(edits, where / str(i)), ("ppo", "details", "ablation"))
        found = {}  # (setting, seed) -> departures
        for proof in (runs[key] for key in sorted(runs)):
            header = unpack(proof)[0]
            if args.seeds and str(header["seed"]) not in args.seeds.split(","):
                continue
            departs, weight, v, seconds, sampled = departures(student, proof, bar)
            found[header["setting"], header["seed"]] = departs
            print(f"  {name}: {header['setting']}, seed {header['seed']}: largest gaps {weight:.3g} a weight, "
                  f"{v:.3g} on v (relative); departs at {int(departs.sum())} of {len(departs)} updates"
                  f"{' (the first among them)' if departs[0] else ''}; every update re-made {seconds:.2f} s, the "
                  f"sample re-made and bound {sampled:.2f} s", flush=True)
        copied = [key for key in found if key[0] in TABLE]
        if not any(found[key].any() for key in copied):
            copied = [key for key in found if found[key].any()]
        chance = {k: float(np.prod([escapes(found[key], k) for key in copied])) for k in sizes}
        summary.append((name, name in IMPLEMENTATIONS, sum(d.any() for d in found.values()), len(found),
                        sorted({key[0] for key in copied}), chance))
    print("\nimplementation | runs departing | copied table's settings | chance a copied table escapes, per k")
    for name, correct, bad, total, settings, chance in summary:
        print(f"{'(correct) ' if correct else ''}{name} | {bad} of {total} | {', '.join(settings) or '-'} | "
              + ", ".join(f"k={k}: {p:.3g}" for k, p in chance.items()), flush=True)
    shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
