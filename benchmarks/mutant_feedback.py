"""Benchmark: what a failing row says about a mistake nobody wrote by hand. Each mechanical mutant of the reference's
student-written functions (tests/support/mutations.py) is graded on its project's single-piece and whole-step checks;
for the mutants that fail some check, per project: the failing rows, the share of them whose row names a known mistake
(report.json's ``findings``), the share that names a known mistake or says where the output departs (``located``),
the rows whose code raised (their message names the line) and the share of the others that name or locate, and the
rows whose message prints an array of more than 8 numbers.

    nice -n 10 .venv/bin/python -m benchmarks.mutant_feedback --projects D,C --limit 20 --out mutants.json

Run from the repository's root. Each mutant grades its project's piece checks once (seconds for C and D, longer for
A's update).
"""

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from tests.support.located_truth import judged_statements, loaded
from tests.support.mutations import generate
from tests.support.plain_messages import longest_array

PIECE_CHECKS = {  # the checks of a single piece and of a whole step, whose failing rows are measured
    "A": ["A.gae", "A.batch", "A.ratio", "A.clip_gradient", "A.value_entropy", "A.update"],
    "C": ["C.entropy", "C.kl_clip", "C.explained_variance", "C.td_q", "C.return_drop"],
    "D": ["D.weights", "D.kl_penalty", "D.clip_gradient", "D.price_exploit", "D.grpo_step"],
}
# graded too and counted apart: a verdict on the student's labels of three logs, which builds on `diagnose` and every
# diagnostic it reads, so it is neither a single piece nor a whole step
APART = {"C": ["C.own_labels"]}
def graded_rows(mutant, course, seed_set: str) -> list[dict]:
    """The mutant's rows of its project's piece checks, graded from a copy of the reference's folder; each located
    statement of a check whose cases tests/support/located_truth.py can replay is marked true or false there."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / mutant.folder
        shutil.copytree(paths.SOLUTIONS / mutant.folder, folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.ipynb", "*.png"))
        (folder / mutant.module).write_text(mutant.source, encoding="utf-8")
        report = grade(tmp, course, seed_set=seed_set, projects=[mutant.project],
                       checks=PIECE_CHECKS[mutant.project] + APART.get(mutant.project, [])).report.to_json()
        rows = [check for project in report["projects"].values() for check in project["checks"]]
        for row in (row for row in rows if row.get("located")):
            with loaded(folder, PROJECTS[mutant.project].modules) as piece:
                row["checked"], row["false_statements"] = judged_statements(
                    row["id"], row["located"], piece, min(course.seeds.public),
                    course.projects[mutant.project].checks[row["id"]].bar)
    return rows


def failing_row(check: dict) -> dict:
    return {"id": check["id"], "findings": [f["id"] for f in check.get("findings", [])],
            "checked": check.get("checked", 0), "false_statements": check.get("false_statements", []),
            "located": [s["id"] for s in check.get("located", [])],
            "longest_array": longest_array(check["message"]), "message_chars": len(check["message"]),
            "raised": "status" in (check.get("details") or {}) or "` raised " in check["message"]}


def spread(mutants: list, limit: int | None, shift: int = 0) -> list:
    """``limit`` mutants taken at even steps through the list, so every function and operator is sampled, each
    ``shift`` places on (a sample apart from the unshifted one while ``shift`` is less than the step)."""
    if limit is None or limit >= len(mutants):
        return mutants
    return [mutants[(i * len(mutants) // limit + shift) % len(mutants)] for i in range(limit)]


def measure(project: str, course, seed_set: str, limit: int | None, shift: int = 0) -> dict:
    mutants = spread(generate(project), limit, shift)
    caught = {}
    for number, mutant in enumerate(mutants, 1):
        failing = [failing_row(c) for c in graded_rows(mutant, course, seed_set) if not c["passed"]]
        print(f"{project} {number}/{len(mutants)} {mutant.id}: {len(failing)} failing rows", flush=True)
        if failing:
            caught[mutant.id] = {"change": mutant.change, "rows": failing}
    rows = [row for entry in caught.values() for row in entry["rows"]]
    return {"generated": len(mutants), "failing_some_check": len(caught),
            **tally([r for r in rows if r["id"] in PIECE_CHECKS[project]]),
            "apart": tally([r for r in rows if r["id"] not in PIECE_CHECKS[project]]), "mutants": caught}


def tally(rows: list[dict]) -> dict:
    return {"failing_rows": len(rows), "rows_with_finding": sum(bool(r["findings"]) for r in rows),
            "rows_with_finding_or_located": sum(bool(r["findings"] or r["located"]) for r in rows),
            "rows_raised": sum(r["raised"] for r in rows),
            "ran_with_finding_or_located": sum(bool(r["findings"] or r["located"]) for r in rows if not r["raised"]),
            "statements_checked": sum(r["checked"] for r in rows),
            "false_statements": sum(len(r["false_statements"]) for r in rows),
            "rows_over_8_numbers": sum(r["longest_array"] > 8 for r in rows)}


def share(count: int, result: dict, of: str = "failing_rows") -> str:
    total = result[of] if of == "failing_rows" else result["failing_rows"] - result["rows_raised"]
    return f"{count} ({count / total:.0%})" if total else "-"


def table(results: dict) -> str:
    lines = ["| project | mutants | failing some check | failing rows | with a finding | with a finding or located "
             "| raised (line named) | of the rest, with a finding or located | over 8 numbers "
             "| statements checked, false |", "|---|---|---|---|---|---|---|---|---|---|"]
    for project, result in results.items():
        for name, r in ((project, result), (f"{', '.join(APART.get(project, []))} (apart)", result["apart"])):
            if r["failing_rows"] or name == project:
                lines.append(row(name, r, result))
    return "\n".join(lines)


def row(name: str, r: dict, result: dict) -> str:
    return (f"| {name} | {result['generated']} | {result['failing_some_check']} | {r['failing_rows']} | "
            f"{share(r['rows_with_finding'], r)} | {share(r['rows_with_finding_or_located'], r)} | "
            f"{r['rows_raised']} | {share(r['ran_with_finding_or_located'], r, 'ran')} | "
            f"{r['rows_over_8_numbers']} | {r['statements_checked']}, {r['false_statements']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,C,D")
    parser.add_argument("--limit", type=int, default=None, help="N mutants of each project, at even steps")
    parser.add_argument("--shift", type=int, default=0,
                        help="take each of the --limit mutants this many places on: a sample apart from the unshifted")
    parser.add_argument("--seed-set", choices=["public", "grading"], default="public")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    results = {p: measure(p, course, args.seed_set, args.limit, args.shift) for p in args.projects.split(",")}
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
