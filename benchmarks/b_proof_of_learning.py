"""Benchmark: B's proof of learning on correct code, every setting, without the sandbox.

    .venv/bin/python -m benchmarks.b_proof_of_learning [--sets 1] [--first 0] [--updates 60] [--settings a,b]
                                                       [--only NAME]

For each seed set (three seeds from a fixed draw, so ``--first`` continues a sweep), each setting (the baseline and
each of the nine details flipped, unless --settings names some) and each implementation (the reference and two
correct rewrites, ``IMPLEMENTATIONS``, interleaved), trains the run with the kit's loop and the implementation's
details.py pieces, as B.table's and B.bar's child does (``proofs.recorded_runs``), and audits it as their judge
does (``proofs.replay``); prints a line per run (so a sweep stopped early says what it did), then, per
implementation, the runs whose replay departed (false fails) and the median seconds of training and of the audit.
Budget, tolerances and hyperparameters from course.yml's B.bar, as the grader's.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from autograder import paths
from autograder.loader import load_course
from autograder.projects.b_ablations import proofs
from autograder.projects.b_ablations.catalogue import DETAILS
from capstone_check.student import Student
from tests.support.mutants import EQUIVALENT
from benchmarks.replay_gaps import spy_on_gaps

KIT = Path(__file__).resolve().parent.parent
A_REWRITES = {e.name: (e.old, e.new) for e in EQUIVALENT if e.folder == "A_ppo"}
LOOP = ("        for k in range(config.minibatches):\n            idx = perm[k * size:(k + 1) * size]\n",
        "        for idx in perm[:size * config.minibatches].reshape(config.minibatches, size):\n")
VALUE_LOSS = ("    use_clipped = clipped_sq > plain_sq\n    grad = np.where(use_clipped, (clipped - returns) * "
              "(np.abs(values - values_old) < eps), values - returns)\n",
              "    grad = values - returns\n    held = np.abs(values - values_old) < eps\n"
              "    for i in np.flatnonzero(clipped_sq > plain_sq):\n"
              "        grad[i] = (clipped[i] - returns[i]) if held[i] else 0.0\n")
NORMALIZED = ("                adv = (adv - adv.mean()) / (adv.std() + 1e-8)\n",
              "                centred = adv - np.mean(adv)\n"
              "                adv = centred / (np.sqrt(np.mean(centred * centred)) + 1e-8)\n")
TRUNCATION = ("    terminated = segment.terminated if details.bootstrap_truncation else segment.terminated | "
              "segment.truncated\n",
              "    terminated = np.logical_or(segment.terminated,\n"
              "                               segment.truncated & (not details.bootstrap_truncation))\n")
# (file, old, new) edits of the reference: correct code written differently, each must follow the replay
IMPLEMENTATIONS = {
    "reference": [],
    "GAE as whole rows, minibatches as rows of the permutation, value loss per term": [
        ("ppo.py", *A_REWRITES["GAE with the TD errors computed as whole rows first"]),
        ("details.py", *LOOP), ("details.py", *VALUE_LOSS)],
    "ratio as a quotient, normalization written out, truncation as a logical or": [
        ("ppo.py", *A_REWRITES["ratio as a quotient of probabilities"]),
        ("details.py", *NORMALIZED), ("details.py", *TRUNCATION)],
}


def folder_of(edits: list, where: Path) -> Path:
    """A copy of the reference's B_ablations with ``edits`` applied (each must match exactly once)."""
    folder = where / "B_ablations"
    shutil.copytree(paths.SOLUTIONS / "B_ablations", folder)
    for name, old, new in edits:
        text = (folder / name).read_text()
        assert text.count(old) == 1, (name, old)
        (folder / name).write_text(text.replace(old, new))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="skip this many seed sets (to continue a sweep)")
    parser.add_argument("--updates", type=int, default=0, help="default: course.yml's n_updates")
    parser.add_argument("--settings", default="", help="comma-separated settings (default: baseline and all nine)")
    parser.add_argument("--only", action="append", help="an implementation's name (repeatable); default: all")
    parser.add_argument("--tolerance", type=float, help="replay_tolerance (default: course.yml's)")
    parser.add_argument("--moment-tolerance", type=float, help="moment_tolerance (default: course.yml's)")
    args = parser.parse_args()
    bar = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.bar"].bar
    rbar = proofs.ReplayBar(num_envs=bar["num_envs"], n_steps=bar["n_steps"],
                            n_updates=args.updates or bar["n_updates"],
                            replay_tolerance=args.tolerance or bar["replay_tolerance"],
                            moment_tolerance=args.moment_tolerance or bar["moment_tolerance"],
                            hyperparameters=bar["hyperparameters"])
    largest = spy_on_gaps()
    names = args.settings.split(",") if args.settings else ["baseline", *DETAILS]
    pool = np.random.default_rng(15).choice(2 ** 32, size=(max(20, args.first + args.sets), 3), replace=False)
    where = Path(tempfile.mkdtemp())
    students = {}
    for i, (name, edits) in enumerate(IMPLEMENTATIONS.items()):
        if not args.only or name in args.only:
            # each implementation's modules under names of their own: Student imports them by file
            students[name] = Student(folder_of(edits, where / str(i)), ("ppo", "details", "ablation"))
    done = {name: [] for name in students}  # (seed, setting, failure, seconds training, seconds auditing)
    for triple in pool[args.first:args.first + args.sets].tolist():
        for seed in triple:
            for setting in names:
                for name, student in students.items():
                    started = time.perf_counter()
                    with threadpool_limits(limits=1):  # as the sandboxed child
                        run_ = proofs.recorded_runs(student, [setting], seed, rbar)["settings"][setting]
                    trained = time.perf_counter() - started
                    started = time.perf_counter()
                    largest["reset"]()
                    with threadpool_limits(limits=1):  # as the grader's audit process
                        _, failure = proofs.replay(run_, seed, rbar)
                    gaps = {key: largest[key] for key in ("parameters", "moments")}
                    done[name].append((seed, setting, failure, trained, time.perf_counter() - started, gaps))
                    print(f"  {name}: seed {seed}, {setting}: " + (failure or "followed the replay")
                          + f" (largest gaps: parameters {largest['parameters']:.2g}, moments {largest['moments']:.2g};"
                          f" training {trained:.1f} s, audit {done[name][-1][4]:.1f} s)", flush=True)
    for name, runs in done.items():
        fails = [(r[0], r[1]) for r in runs if r[2]]
        followed = [r[5] for r in runs if not r[2]]
        print(f"{name}: {len(fails)} false fails in {len(runs)} runs ({args.sets} sets of 3 seeds, {len(names)} "
              f"settings, tolerances {rbar.replay_tolerance:g} and {rbar.moment_tolerance:g})"
              f"{': ' + repr(fails) if fails else ''}; largest gaps of the runs that followed: parameters "
              f"{max((g['parameters'] for g in followed), default=0):.2g}, moments "
              f"{max((g['moments'] for g in followed), default=0):.2g}; median training "
              f"{np.median([r[3] for r in runs]):.2f} s, audit {np.median([r[4] for r in runs]):.2f} s per run",
              flush=True)
    shutil.rmtree(where, ignore_errors=True)

if __name__ == "__main__":
    main()
