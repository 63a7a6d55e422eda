"""Benchmark: A.bar's proof of learning on correct code and on cheats, without the sandbox.

    .venv/bin/python -m benchmarks.a_proof_of_learning [--sets 20] [--first 0] [--updates 60] [--cheats]

For each implementation (the reference and two correct rewrites: GAE with the TD errors as whole rows, and an update
loop over the rows of the reshaped permutation with the ratio as a quotient of probabilities), trains --sets seed
triples with the kit's loop (``_shared.proof``) and audits every run as A.bar's judge does, the implementations
interleaved seed by seed; prints a line per run (so a sweep stopped early says exactly what it did), then, per
implementation, the runs whose replay departed (false fails) and the median time of training and of the audit.
``--first`` skips seed sets of the same fixed draw, to continue a sweep. With --cheats, each cheat of ``CHEATS``
must depart (a short run of 12 updates). Hyperparameters come from course.yml, as the grader's.
"""

from __future__ import annotations

import argparse

import numpy as np

from autograder import paths
from autograder.checks import validated_bar
from autograder.loader import load_course
from autograder.projects.a_ppo.training import Bar450
from benchmarks.replay_gaps import spy_on_gaps
from tests.support.proof_cheats import CHEATS, IMPLEMENTATIONS, REFERENCE, UPDATE, proof, source_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="skip this many seed sets (to continue a sweep)")
    parser.add_argument("--updates", type=int, default=0, help="default: course.yml's n_updates")
    parser.add_argument("--cheats", action="store_true")
    parser.add_argument("--only", action="append", help="an implementation's name (repeatable); default: all")
    args = parser.parse_args()
    bar = validated_bar(Bar450, load_course(paths.COURSE_FILE, private=False).projects["A"].checks["A.bar"].bar,
                        "projects.A.checks.A.bar")  # validated once, not per run
    n_updates = args.updates or bar.n_updates
    pool = np.random.default_rng(15).choice(2 ** 32, size=(max(20, args.first + args.sets), 3), replace=False)
    seeds = pool[args.first:args.first + args.sets].tolist()  # --sets 20 and --first 4 --sets 4 share their sets
    chosen = {name: source_of(rewrites) for name, rewrites in IMPLEMENTATIONS.items()
              if not args.only or name in args.only}
    runs = {name: [] for name in chosen}  # (departed, seconds training, seconds auditing, largest gaps) per run
    largest = spy_on_gaps()
    for triple in seeds:  # implementations interleaved, so a sweep stopped early is still balanced
        for seed in triple:
            for name, source in chosen.items():
                largest["reset"]()
                departed, gap, t, a = proof(source, seed, bar, n_updates)
                runs[name].append((departed, t, a, (largest["parameters"], largest["moments"])))
                print(f"  {name}: seed {seed} " + (f"departed at update {departed} (gap {gap:.3g})"
                                                      if departed is not None else "followed the replay")
                      + f" (largest gaps: parameters {largest['parameters']:.2g}, moments "
                        f"{largest['moments']:.2g})", flush=True)
    for name, done in runs.items():
        fails = sum(r[0] is not None for r in done)
        followed = [r[3] for r in done if r[0] is None]
        print(f"{name}: {fails} false fails in {len(done)} runs ({args.sets} sets, tolerances "
              f"{bar.replay_tolerance:g} and {bar.moment_tolerance:g}); largest gaps of the runs that followed: "
              f"parameters {max((g[0] for g in followed), default=0):.2g}, moments "
              f"{max((g[1] for g in followed), default=0):.2g}; median training "
              f"{np.median([r[1] for r in done]):.2f} s, audit {np.median([r[2] for r in done]):.2f} s per run",
              flush=True)
    if args.cheats:
        for name, edit in CHEATS.items():
            departed, gap, _, _ = proof(REFERENCE.replace(UPDATE, edit), seeds[0][0], bar, 12)
            verdict = ("NOT CAUGHT" if departed is None else f"caught at update {departed}" if departed
                       else "refused while training")
            print(f"cheat '{name}': {verdict}"
                  f" (gap {gap:.3g})", flush=True)


if __name__ == "__main__":
    main()
