"""Benchmark: the generated mutants that keep full marks. Each mechanical mutant of a project's student-written
functions (tests/support/mutations.py, the generator benchmarks/mutant_feedback.py uses) is graded from a copy of the
reference's folder with the one module changed, cheaply (tests/support/survivors.py): first on the project's quick
checks (each check neither run once per seed nor costlier than a single piece: A's pieces and update, B's defaults,
switches and summary, C's diagnostics and labels, D's pieces, step and prices); only a mutant with full marks on all of
those is then graded on the rest (the training runs, sweeps and tables). A survivor is a mutant with full marks on
EVERY check of its project on the seed set graded (the course's public seeds unless --seed-set says otherwise). Each
survivor is printed with its id, its change (before -> after) and whether the kit's reviewed list of equivalent
mutants (tests/support/equivalent_mutants.py) explains it, with the list's reason.

    nice -n 10 .venv/bin/python -m benchmarks.mutant_survivors --projects D,C --out survivors.json
    nice -n 10 .venv/bin/python -m benchmarks.mutant_survivors --projects A --limit 60 --seed 11

Run from the repository's root, one grading at a time (``jobs=1``). --limit takes N mutants of each project at even
steps through the list (``mutant_feedback.spread``, moved on by --shift); with --seed, N mutants drawn at random
(numpy's ``default_rng(seed)``) instead: a sample apart from the even steps. B's mutants are graded with the
reference's results.json and runs.npz (a student would have made theirs with the mutant).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.loader import load_course
from benchmarks.mutant_feedback import spread
from tests.support.equivalent_mutants import explained
from tests.support.mutations import generate
from tests.support.survivors import graded_rows, lost, split_checks


def sample(mutants: list, limit: int | None, shift: int = 0, seed: int | None = None) -> list:
    """``limit`` of ``mutants``: at even steps (``spread``), or drawn with ``default_rng(seed)`` in the list's order."""
    if seed is None or limit is None or limit >= len(mutants):
        return spread(mutants, limit, shift)
    drawn = np.random.default_rng(seed).choice(len(mutants), size=limit, replace=False)
    return [mutants[i] for i in sorted(drawn)]


def measure(project: str, course, seed_set: str, limit: int | None, shift: int = 0, seed: int | None = None) -> dict:
    everything = generate(project)
    mutants = sample(everything, limit, shift, seed)
    quick, costly = split_checks(project, course)
    result = {"generated": len(everything), "graded": len(mutants), "quick_checks": quick, "costly_checks": costly,
              "failing_quick": 0, "failing_costly": 0, "survivors": [], "seconds": 0.0}
    started = time.perf_counter()
    for number, mutant in enumerate(mutants, 1):
        failing = lost(graded_rows(mutant, course, seed_set, quick))
        if failing:
            result["failing_quick"] += 1
        elif costly:
            failing = lost(graded_rows(mutant, course, seed_set, costly))
            result["failing_costly"] += bool(failing)
        print(f"{project} {number}/{len(mutants)} {mutant.id}: "
              f"{'fails ' + ', '.join(failing) if failing else 'FULL MARKS'} ({time.perf_counter() - started:.0f} s)",
              flush=True)
        if not failing:
            reason = explained(mutant)
            result["survivors"].append({"id": mutant.id, "change": mutant.change, "explained": reason is not None,
                                        "reason": reason})
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["explained"] = sum(s["explained"] for s in result["survivors"])
    return result


def report(results: dict) -> str:
    lines = []
    for project, r in results.items():
        lines.append(f"{project}: {r['graded']} of {r['generated']} graded in {r['seconds']:.0f} s; "
                     f"{r['failing_quick']} fail a quick check, {r['failing_costly']} fail only a costly one, "
                     f"{len(r['survivors'])} keep full marks, {r['explained']} of them explained")
        for s in r["survivors"]:
            said = f"equivalent: {s['reason']}" if s["explained"] else "NOT EXPLAINED"
            lines.append(f"  {s['id']}  {s['change']}  [{said}]")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--limit", type=int, default=None, help="N mutants of each project (default: every one)")
    parser.add_argument("--shift", type=int, default=0, help="take each of the --limit even steps this many places on")
    parser.add_argument("--seed", type=int, default=None,
                        help="with --limit: draw the N mutants at random with this seed instead of at even steps")
    parser.add_argument("--seed-set", choices=["public", "grading"], default="public")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    results = {}
    for project in args.projects.split(","):
        results[project] = measure(project, course, args.seed_set, args.limit, args.shift, args.seed)
        if args.out:  # after each project, so a long run keeps what it measured
            args.out.write_text(json.dumps(results, indent=1))
    print(report(results))


if __name__ == "__main__":
    main()
