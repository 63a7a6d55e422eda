"""Benchmark: C.fresh_runs under many draws of grading seeds, on every implementation of C the kit knows: its planted
bugs, its correct rewrites and every generated mutant. Each ``diagnose`` labels the runs C.fresh_runs' own
``prepare`` makes for each seed, and C.fresh_runs' own judge scores them, once per seed set; it prints how many wrong
implementations change score between the draws, and which.

    nice -n 10 .venv/bin/python -m benchmarks.c_fresh_draws --sets 5
    PYTHONPATH=<an older tree> .venv/bin/python <this file> --sets 5    # the same measure of an earlier kit

The student's code runs here in-process, not sandboxed: the kit's own implementations only. ``benchmarks/draw_proof.py``
grades through the sandbox, every seeded check of a project, at about 7 s per implementation and set; this measures
the one check on every generated mutant in minutes. Seed sets are drawn as ``grading_seed_sweep`` draws them.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from autograder import paths
from autograder.loader import load_course
from autograder.plan import planned
from benchmarks.grading_seed_sweep import seed_sets
from tests.support.grading import mutate
from tests.support.mutants import ALL, EQUIVALENT
from tests.support.mutations import generate

MODULE = paths.SOLUTIONS / "C_diagnosis" / "diagnostics.py"


def implementations() -> list[tuple[str, str, str]]:
    """(kind, name, source of diagnostics.py) for every implementation of C the kit knows."""
    source = MODULE.read_text(encoding="utf-8")
    out = [("planted", m.name, mutate(source, m.old, m.new)) for m in ALL if m.folder == "C_diagnosis"]
    out += [("rewrite", v.name, mutate(source, v.old, v.new)) for v in EQUIVALENT if v.folder == "C_diagnosis"]
    return out + [("generated", m.id, m.source) for m in generate("C")]


class Loaded:
    """An implementation's ``diagnose``, loaded apart, as the collector calls it (``student.fn``)."""

    def __init__(self, source: str):
        namespace = {"__file__": str(MODULE), "__name__": "diagnostics"}
        exec(compile(source, str(MODULE), "exec"), namespace)  # noqa: S102 - the kit's own implementations
        self.diagnose = namespace["diagnose"]

    def fn(self, name: str):
        assert name == "diagnose", name
        return lambda log: self.diagnose({key: np.array(value, copy=True) for key, value in log.items()})


def score(item, inputs: list, student) -> float:
    """C.fresh_runs' points for ``student`` on one seed set (``inputs``: each child's context, loaded); 0 where its
    `diagnose` raises or says no label, as the child's error is in final grading."""
    check, labels = item.check, []
    try:
        for ctx in inputs:
            labels += check.gather(student, ctx.loaded)["labels"]
        verdict = check.judge({"labels": labels}, item.context)
    except Exception:  # noqa: BLE001 - whatever the student's code raises costs the row, as in final grading
        return 0.0
    return round(item.points * verdict.fraction, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=5)
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--rng", type=int, default=0, help="seed of the draw of the seed sets")
    parser.add_argument("--out", default="", help="write every score as JSON here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # a mutant's NaNs and overflows
    base = load_course(paths.COURSE_FILE, private=False)
    items, started = [], time.perf_counter()
    for seeds in seed_sets(args.sets, args.size, args.rng):
        course = base.model_copy(update={"seeds": base.seeds.model_copy(update={"grading": seeds})})
        item = planned(course, "C", "C.fresh_runs", "grading")
        contexts = [item.context_for(shard, item.check.prepare(item.context_for(shard))) for shard in item.shards()]
        items.append((item, [item.check.read_inputs(ctx) for ctx in contexts]))
    prepared = time.perf_counter() - started
    rows = {}
    for kind, name, source in implementations():
        try:
            student = Loaded(source)
        except Exception:  # noqa: BLE001 - a mutant that does not load is no implementation
            continue
        rows[name] = {"kind": kind, "scores": [score(item, inputs, student) for item, inputs in items]}
    full = max(item.points for item, _ in items)
    wrong = {n: r for n, r in rows.items() if r["kind"] != "rewrite" and min(r["scores"]) < full}
    changed = {n: r["scores"] for n, r in wrong.items() if len(set(r["scores"])) > 1}
    right_lost = [n for n, r in rows.items() if n not in wrong and min(r["scores"]) < full]
    print(f"{len(rows)} implementations ({len(wrong)} wrong), {args.sets} seed sets of {args.size}; runs prepared in "
          f"{prepared:.0f} s, all labelled in {time.perf_counter() - started - prepared:.0f} s")
    print(f"wrong whose C.fresh_runs changes between draws: {len(changed)} of {len(wrong)}; right that lose a point: "
          f"{len(right_lost)}")
    for name, scores in changed.items():
        print(f"- {name}: {scores}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
