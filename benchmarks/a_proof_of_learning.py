"""Benchmark: A.bar's proof of learning on correct code and on cheats, without the sandbox.

    .venv/bin/python benchmarks/a_proof_of_learning.py [--sets 20] [--first 0] [--updates 60] [--cheats]

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
import sys
import time
import types
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

KIT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(KIT), str(KIT / "tests"), str(KIT / "benchmarks")]

from autograder import paths  # noqa: E402
from autograder.loader import load_course  # noqa: E402
from autograder.checks import validated_bar  # noqa: E402
from autograder.projects._shared.replay import Departed  # noqa: E402
from autograder.projects._shared.ppo.hyperparameters import course_config  # noqa: E402
from autograder.projects._shared.ppo.recording import recorded  # noqa: E402
from autograder.projects.a_ppo.training import Bar450, audited_run, student_recipe  # noqa: E402
from mutants import EQUIVALENT  # noqa: E402
from replay_gaps import spy_on_gaps  # noqa: E402

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
REWRITES = {e.name: e for e in EQUIVALENT if e.folder == "A_ppo"}
UPDATE = '    B = len(batch["actions"])\n'
CALLS = "    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n"
CHEATS = {  # each edits the reference's ppo_update; every one must depart from the replay
    "pre-trained weights hard-coded": UPDATE.replace("    B", "    PRETRAINED = [np.full(p.shape, 0.05, p.dtype) "
                                                           "for p in optimizer.params]\n    B") ,
    "forged jump at one update": CALLS + "    if CALLS == 7:\n        agent['actor'][0][1] += 1e-3\n" + UPDATE,
    "an update skipped": CALLS + "    if CALLS == 5:\n        return {}\n" + UPDATE,
    "weights trained elsewhere, loaded at the last update": CALLS + "    if CALLS == 12:\n"
        "        for p in optimizer.params:\n            p[...] = np.random.default_rng(1).normal(0, 0.3, p.shape)\n"
        "        return {}\n" + UPDATE,
    "extra steps of the environments": "    import gc\n    from autograder.projects._shared.ppo.recording import "
        "BudgetedEnvs\n    envs = [o for o in gc.get_objects() if isinstance(o, BudgetedEnvs)]\n"
        "    envs and envs[0].step(np.zeros(envs[0].num_envs, dtype=int))\n" + UPDATE,
}
CHEATS["pre-trained weights hard-coded"] += ("    for p, w in zip(optimizer.params, PRETRAINED):\n        p[...] = w\n"
                                             "    return {}\n")


IMPLEMENTATIONS = {"reference": [], "GAE with the TD errors as whole rows": ["GAE with the TD errors computed as "
                                                                              "whole rows first"],
                   "update over the reshaped permutation, ratio as a quotient": [
                       "minibatches as rows of the reshaped permutation", "ratio as a quotient of probabilities"]}


def module_of(source: str) -> types.SimpleNamespace:
    module = types.ModuleType("ppo")
    sys.modules["ppo"] = module  # dataclasses look their module up
    exec(compile(source, "ppo.py", "exec"), module.__dict__)
    return types.SimpleNamespace(modules=[module], fn=lambda name: getattr(module, name))


def source_of(rewrites: list[str]) -> str:
    source = REFERENCE
    for name in rewrites:
        assert source.count(REWRITES[name].old) == 1, name
        source = source.replace(REWRITES[name].old, REWRITES[name].new)
    return source


def proof(source: str, seed: int, bar, n_updates: int) -> tuple[float | None, float, float, float]:
    """(the update that departed or None, its gap, seconds training, seconds auditing) of one run: recorded as
    A.bar's child records it, audited as its judge audits it. ``bar``: A.bar's, as course.yml holds it or validated."""
    if isinstance(bar, dict):
        bar = validated_bar(Bar450, bar, "projects.A.checks.A.bar")
    student = module_of(source)
    graded = bar.model_copy(update={"n_updates": n_updates})
    config, values = course_config(student, graded.hyperparameters), graded.hyperparameters.model_dump()
    started = time.perf_counter()
    try:
        with threadpool_limits(limits=1):  # as the sandboxed child
            run_ = {"seed": seed, **recorded(student_recipe(student, config, values, n_updates), seed, graded,
                                             moments=("m", "v"))}
    except Exception:  # noqa: BLE001 - a cheat that breaks the loop is caught here
        return 0, float("inf"), time.perf_counter() - started, 0.0
    trained = time.perf_counter() - started
    started = time.perf_counter()
    try:
        with threadpool_limits(limits=1):  # as the grader's audit process
            audited_run(run_, seed, graded)
        departed, gap = None, 0.0
    except Departed as exc:
        departed, gap = exc.update, exc.gap
    return departed, gap, trained, time.perf_counter() - started


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
