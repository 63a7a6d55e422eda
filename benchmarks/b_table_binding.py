"""Benchmark: B.table's binding of runs.npz to the folder's pieces, on correct and buggy pieces.

    .venv/bin/python -m benchmarks.b_table_binding [--runs PATH] [--seeds 7,8,9] [--only NAME]

For each implementation (the reference, the two correct rewrites of ``b_proof_of_learning.py`` and three buggy
pieces) and each run of ``runs.npz`` (default: the reference's, made by its harness), re-makes every update with the
implementation's pieces as B.table's child does (``proofs.remade_by_pieces``), replays it with the reference's from
the same state as the judge does (the recorded parameters and m, the pieces' v), and prints per run the largest gap
per parameter between the two and the largest relative gap on Adam's v, without tolerances, and the seconds of the
re-make. Budget and hyperparameters from course.yml's B.table.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared import replay
from autograder.projects._shared.proof import parameters
from autograder.projects.b_ablations import proofs
from capstone_check.student import Student
from benchmarks.b_proof_of_learning import IMPLEMENTATIONS, folder_of
from rlkit.runproof import load_runs, unpack

KIT = Path(__file__).resolve().parent.parent
BUGGY = {
    "GAE ignoring lambda": [("ppo.py", "running = delta + gamma * lam * (1", "running = delta + gamma * (1")],
    "value clip with the plain gradient": [(
        "details.py", "grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), "
        "values - returns)", "grad = values - returns")],
    "advantages scaled, not centred": [
        ("details.py", "adv = (adv - adv.mean()) / (adv.std() + 1e-8)", "adv = adv / (adv.std() + 1e-8)")],
}


def gaps(student, proof: bytes, bar) -> tuple[float, float, float]:
    """(largest gap a weight, largest relative gap on v, seconds of the re-make) of one recorded run."""
    header, snapshots, moments, actions = unpack(proof)
    started = time.perf_counter()
    made = proofs.remade_by_pieces(student, header["setting"], header["seed"], proof, bar)
    seconds = time.perf_counter() - started
    size = snapshots.shape[1]
    remade = proofs.decode(made["remade"], (snapshots.shape[0], 2 * size)).astype(float)
    judge = np.full(remade.shape, np.nan)

    def keep(k, agent, optimizer):
        judge[k] = np.concatenate([parameters(agent), optimizer.v])

    recipe = proofs.reference_recipe(bar.hyperparameters.model_dump(), proofs.details_of(header["setting"]),
                                     bar.n_updates)
    replay.replay_run(snapshots, actions, header["seed"], recipe, np.concatenate([moments, remade[:, size:]], 1),
                      keep)
    weight = np.abs(judge[:, :size] - remade[:, :size])
    v = np.abs(judge[:, size:] - remade[:, size:]) / (judge[:, size:] + 1e-10)
    return float(np.nan_to_num(weight, nan=np.inf).max()), float(np.nan_to_num(v, nan=np.inf).max()), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=paths.SOLUTIONS / "B_ablations" / "runs.npz")
    parser.add_argument("--seeds", default="", help="comma-separated seeds (default: every run's)")
    parser.add_argument("--only", action="append", help="an implementation's name (repeatable); default: all")
    args = parser.parse_args()
    table = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.table"].bar
    bar = proofs.OwnReplayBar(**{name: table[name] for name in proofs.OwnReplayBar.model_fields})
    runs = load_runs(args.runs)
    where = Path(tempfile.mkdtemp())
    for i, (name, edits) in enumerate({**IMPLEMENTATIONS, **BUGGY}.items()):
        if args.only and name not in args.only:
            continue
        student = Student(folder_of(edits, where / str(i)), ("ppo", "details", "ablation"))
        found = []
        for proof in (runs[key] for key in sorted(runs)):
            header = unpack(proof)[0]
            if args.seeds and str(header["seed"]) not in args.seeds.split(","):
                continue
            found.append(gaps(student, proof, bar))
            print(f"  {name}: {header['setting']}, seed {header['seed']}: largest gaps {found[-1][0]:.3g} a weight, "
                  f"{found[-1][1]:.3g} on v (relative); re-make {found[-1][2]:.1f} s", flush=True)
        print(f"{name}: {len(found)} runs, largest gaps {max(f[0] for f in found):.3g} a weight and "
              f"{max(f[1] for f in found):.3g} on v; smallest run's largest {min(f[0] for f in found):.3g} and "
              f"{min(f[1] for f in found):.3g}", flush=True)
    shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
