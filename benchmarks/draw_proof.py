"""Benchmark: does the same code get the same grade on any draw of grading seeds? Each implementation (the project's
planted bugs, its correct rewrites and a sample of the kit's generated mutants) is graded on the checks that run on
seeds, once per random seed set, as an instructor's course.private.yml would set them; per check it prints how many
implementations change score between the draws, and the CPU each implementation's grading took per set.

    nice -n 10 .venv/bin/python -m benchmarks.draw_proof --projects D --sets 5 --mutants 10
    nice -n 10 .venv/bin/python -m benchmarks.draw_proof --projects C --sets 5 --mutants 10 --rng 1

Seed sets are drawn as benchmarks/grading_seed_sweep.py draws them (``--size`` distinct seeds from numpy's whole
range, unsorted). Generated mutants are taken at even steps through the project's list (``mutant_feedback.spread``).
A right implementation (a correct rewrite, or a mutant with full marks on every draw) should keep full marks on every
set; a wrong one should lose the same points on every set. Run from the repository's root, one grading at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import types
from collections import defaultdict

from autograder import paths
from autograder.loader import load_course
from benchmarks.cpu_meter import Meter
from benchmarks.grading_seed_sweep import seed_sets
from benchmarks.mutant_feedback import spread
from tests.support.grading import mutate
from tests.support.mutants import ALL, EQUIVALENT
from tests.support.mutations import MODULES, generate
from tests.support.survivors import graded_rows

SEEDED = {  # per project, its checks whose cases or runs are drawn from the grading seeds and decide on runs
    "A": ["A.bar"], "B": ["B.bar"],
    "C": ["C.own_labels", "C.fresh_runs", "C.diagnose_rules"],
    "D": ["D.chapter_tables", "D.k_sweep", "D.beta_sweep"],
}
FOLDERS = {project: folder for project, (folder, _) in MODULES.items()}


def implementations(project: str, mutants: int, planted: int | None = None,
                    named: str = "") -> list[tuple[str, str, object]]:
    """(kind, name, what ``graded_rows`` grades): ``planted`` of the planted bugs (all by default; at even steps),
    the correct rewrites, ``mutants`` generated mutants (at even steps); with ``named``, only the planted bugs and
    rewrites whose name holds one of its comma-separated words, and no generated mutant."""
    folder, out, words = FOLDERS[project], [], [w for w in named.split(",") if w]
    picked = [m for m in ALL if m.folder == folder and (not words or any(w in m.name for w in words))]
    for kind, items in (("planted", picked if words else spread(picked, planted)),
                        ("rewrite", [v for v in EQUIVALENT if v.folder == folder
                                     and (not words or any(w in v.name for w in words))])):
        for item in items:
            source = mutate((paths.SOLUTIONS / folder / item.module).read_text(encoding="utf-8"), item.old, item.new)
            out.append((kind, item.name, types.SimpleNamespace(folder=folder, module=item.module, source=source,
                                                               project=project)))
    out += [("generated", m.id, m) for m in spread(generate(project), 0 if words else mutants)]
    return out


def measure(project: str, checks: list[str], sets: list[list[int]], mutants: int, planted: int | None,
            meter: Meter, named: str = "") -> dict:
    base = load_course(paths.COURSE_FILE, private=False)
    courses = [base.model_copy(update={"seeds": base.seeds.model_copy(update={"grading": seeds})}) for seeds in sets]
    rows, seconds = {}, []
    for kind, name, implementation in implementations(project, mutants, planted, named):
        scores = defaultdict(list)
        for course in courses:
            before = meter.seconds()
            for cid, row in graded_rows(implementation, course, "grading", checks).items():
                scores[cid].append(row["score"])
            seconds.append(meter.seconds() - before)
        changed = [cid for cid, values in scores.items() if len(set(values)) > 1]
        rows[name] = {"kind": kind, "scores": dict(scores), "changed": changed}
        print(f"{project} {kind} {name}: " + ", ".join(f"{cid} {scores[cid]}" for cid in checks)
              + (f"  CHANGES: {', '.join(changed)}" if changed else ""), flush=True)
    points = {cid: base.projects[project].checks[cid].points for cid in checks}
    return {"checks": checks, "points": points, "sets": sets, "rows": rows, "cpu_per_set": seconds}


def table(project: str, result: dict) -> str:
    rows, points = list(result["rows"].values()), result["points"]
    wrong = [r for r in rows if not right(r, points)]
    lines = [f"{project}: {len(rows)} implementations ({len(wrong)} wrong), {len(result['sets'])} seed sets",
             "check                 wrong that change  right that lose a point"]
    for cid in result["checks"]:
        lines.append(f"{cid:<22}{sum(cid in r['changed'] for r in wrong):>17}"
                     f"{sum(min(r['scores'][cid]) < points[cid] for r in rows if right(r, points)):>25}")
    changed = sum(len({sum(draw) for draw in zip(*r["scores"].values())}) > 1 for r in wrong)
    cpu_per_set = sorted(result["cpu_per_set"])
    lines.append(f"wrong implementations whose total changes between draws: {changed} of {len(wrong)}; CPU per "
                 f"implementation and set: median {cpu_per_set[len(cpu_per_set) // 2]:.1f} s")
    return "\n".join(lines)


def right(row: dict, points: dict) -> bool:
    """A correct rewrite (it should keep full marks), or an implementation with full marks on every check and draw."""
    return row["kind"] == "rewrite" or all(min(v) >= points[cid] for cid, v in row["scores"].items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="C,D")
    parser.add_argument("--sets", type=int, default=5)
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--mutants", type=int, default=10, help="generated mutants per project")
    parser.add_argument("--planted", type=int, default=None, help="planted bugs per project (default: every one)")
    parser.add_argument("--names", default="", help="only planted bugs and rewrites whose name holds one of these "
                        "comma-separated words (no generated mutant)")
    parser.add_argument("--rng", type=int, default=0, help="seed of the draw of the seed sets")
    parser.add_argument("--out", default="", help="write every score as JSON here")
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    sets, results = seed_sets(args.sets, args.size, args.rng), {}
    started = time.perf_counter()
    with Meter() as meter:
        meter.add(os.getpid())  # this process and every child it starts, sandboxed ones included
        for project in args.projects.split(","):
            checks = [cid for cid in SEEDED[project] if cid in course.projects[project].checks]
            results[project] = measure(project, checks, sets, args.mutants, args.planted, meter, args.names)
    for project, result in results.items():
        print(table(project, result))
    print(f"{time.perf_counter() - started:.0f} s of wall time; CPU counted by {meter.how}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
