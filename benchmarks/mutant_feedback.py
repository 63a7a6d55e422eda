"""Benchmark: what a student learns from a failing row on mistakes nobody wrote by hand.

    .venv/bin/python -m benchmarks.mutant_feedback [--projects A,C,D] [--limit N] [--seeds public] [--out FILE]

Grades every mechanical mutant of the reference's student-written functions (tests/support/mutations.py) on its
project's checks of a single piece or a whole step, keeps the mutants that fail some check, and prints per project:
mutants generated and graded, those that fail some check, their failing rows, the share of those rows whose result
carries a named finding, and the rows whose message prints an array of more than eight numbers. ``--limit`` grades
an evenly spread subset of each project's mutants; ``--out`` keeps every failing row as JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from tests.support.grading import grade_checks
from tests.support.mutations import Generated, mutants_of, write_mutant

PIECE_CHECKS = {
    "A": ["A.gae", "A.batch", "A.ratio", "A.clip_gradient", "A.value_entropy", "A.update"],
    "C": ["C.entropy", "C.kl_clip", "C.explained_variance", "C.td_q", "C.return_drop"],
    "D": ["D.weights", "D.kl_penalty", "D.clip_gradient", "D.grpo_step", "D.price_exploit"],
}
ARRAY = re.compile(r"\[[^\[\]]*\]")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def longest_array(message: str) -> int:
    """The most numbers any bracketed array of ``message`` prints."""
    return max((len(NUMBER.findall(part)) for part in ARRAY.findall(message)), default=0)


def spread(items: list, limit: int | None) -> list:
    """At most ``limit`` of ``items``, evenly spread over the list (all of them without a limit)."""
    if not limit or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def failing_rows(mutant: Generated, course, seed_set: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as root:
        results = grade_checks(write_mutant(Path(root), mutant), course, checks=PIECE_CHECKS[mutant.project],
                               seed_set=seed_set)
    return [{"mutant": mutant.id, "check": cid, "message": r["message"], "findings": r.get("findings", [])}
            for cid, r in results.items() if not r["passed"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,C,D")
    parser.add_argument("--limit", type=int, help="mutants per project, evenly spread (default: all)")
    parser.add_argument("--seeds", default="public", choices=["public", "grading"])
    parser.add_argument("--out", type=Path, help="write every failing row here as JSON")
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    kept, table = [], []
    for project in args.projects.split(","):
        unique = list({m.source: m for m in mutants_of(project)}.values())
        chosen = spread(unique, args.limit)
        started, failing, rows = time.perf_counter(), 0, []
        for n, mutant in enumerate(chosen, 1):
            found = failing_rows(mutant, course, args.seeds)
            failing += bool(found)
            rows += found
            print(f"{project} {n}/{len(chosen)} {mutant.id}: {len(found)} failing rows", flush=True)
        named = sum(bool(r["findings"]) for r in rows)
        long = sum(longest_array(r["message"]) > 8 for r in rows)
        table.append((project, len(unique), len(chosen), failing, len(rows), named, long,
                      time.perf_counter() - started))
        print(f"{project}: {failing} of {len(chosen)} mutants fail; {len(rows)} rows, {named} with a finding, "
              f"{long} with an array of more than 8 numbers", flush=True)
        kept += rows
        if args.out:  # after each project, so a run stopped early keeps what it measured
            args.out.write_text(json.dumps(kept, indent=1))
    print("\n| project | mutants | graded | failing some check | failing rows | with a finding | arrays > 8 numbers |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for project, made, graded, failing, rows, named, long, _ in table:
        share = f"{named} ({100 * named / rows:.0f} %)" if rows else "0"
        print(f"| {project} | {made} | {graded} | {failing} | {rows} | {share} | {long} |")


if __name__ == "__main__":
    main()
