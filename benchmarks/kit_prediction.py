"""Benchmark: does the students' checker predict final grading? For the reference and every planted bug of tests/,
the total ``capstone-check P`` predicts ("Predicted at final grading: X/Y") against the total the grader gives the
same submission on the public seeds (every check of the project; C's own labels on the example logs the reference
holds, as for a course without a secret), and by how much a
prediction above the grader's stays within the points of the rows the checker marks ---- (left to final grading).

    .venv/bin/python -m benchmarks.kit_prediction [--projects A,B,C,D] [--bundle DIR] [--out FILE.json]
    .venv/bin/python -m benchmarks.kit_prediction --tables A.json D.json     # the table of earlier runs
    .venv/bin/python -m benchmarks.kit_prediction --projects A --again A.json --failing A.update --out A2.json
    .venv/bin/python -m benchmarks.kit_prediction --projects B --skip 5 --out B2.json    # go on after case 5
    .venv/bin/python -m benchmarks.kit_prediction --projects B --cases "a results table;reference" --out B4.json

``--again`` runs only the cases of an earlier run whose row ``--failing`` did not earn full marks in the checker's
output (the cases a change to how that row is predicted can reach); in ``--tables`` a later file's case replaces an
earlier file's case of the same name.

The bundle is built into a temporary folder unless ``--bundle`` names one. Each case grades a whole project twice
(checker and grader), training included: minutes per project.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from autograder.student_kit import build
from tests.support.mutants import ALL

KIT = Path(__file__).resolve().parent.parent
PREDICTED = re.compile(r"Predicted at final grading: ([\d.]+)/([\d.]+)")


def submission(into: Path, pid: str, mutant=None) -> Path:
    """A copy of the reference's project folder, with ``mutant`` planted."""
    folder = PROJECTS[pid].folder
    shutil.copytree(paths.SOLUTIONS / folder, into / folder, ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        path = into / folder / mutant.module
        source = path.read_text()
        assert source.count(mutant.old) == 1, mutant.name
        path.write_text(source.replace(mutant.old, mutant.new))
    return into


def checker(bundle: Path, pid: str, root: Path) -> tuple[float, dict[str, str]]:
    """The checker's predicted total and each row's shown score, from its printed output."""
    env = {**os.environ, "PYTHONPATH": str(bundle)}
    done = subprocess.run([sys.executable, "-m", "capstone_check", pid, "--folder", str(root / PROJECTS[pid].folder)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=3600)
    found = PREDICTED.search(done.stdout)
    if found is None:
        raise RuntimeError(f"no prediction in the checker's output:\n{done.stdout}\n{done.stderr}")
    rows = {words[0]: words[1] for words in map(str.split, done.stdout.splitlines())
            if len(words) > 2 and words[0].startswith(f"{pid}.")}
    return float(found.group(1)), rows


def grader(course, pid: str, root: Path) -> tuple[float, dict[str, float]]:
    report = grade(root, course, seed_set="public", projects=[pid]).report  # no id: C's labels of the example logs
    project = report.projects[pid]
    return project.score, {check.id: check.score for check in project.checks}


def final_only_points(bundle: Path, pid: str) -> float:
    data = json.loads((bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())
    return sum(spec["points"] for spec in data["checks"].values() if spec["kind"] == "final_only")


def failing(earlier: Path, check: str) -> set[str]:
    """The cases of an earlier run whose row ``check`` did not earn full marks in the checker's output."""
    return {case["case"] for case in json.loads(earlier.read_text())
            if case["rows_here"].get(check, "").split("/")[0] != case["rows_here"].get(check, "/").split("/")[1]}


def run_case(bundle: Path, course, pid: str, mutant) -> dict:
    with tempfile.TemporaryDirectory(prefix="kit-prediction-") as tmp:
        root = submission(Path(tmp), pid, mutant)
        started = time.perf_counter()
        predicted, shown = checker(bundle, pid, root)
        final, rows = grader(course, pid, root)
    differing = {cid: f"here {shown.get(cid)}, final {score:g}" for cid, score in rows.items()
                 if shown.get(cid, "").split("/")[0] not in (f"{score:g}", "-")}
    return {"project": pid, "case": mutant.name if mutant else "reference", "check": mutant.check if mutant else "",
            "predicted": predicted, "final": final, "marked": final_only_points(bundle, pid),
            "rows_differing": differing, "rows_here": shown, "rows_final": rows,
            "seconds": round(time.perf_counter() - started, 1)}


def table(results: list[dict]) -> str:
    lines = ["| project | cases | predicted = final | predicted above final | of them, by more than the ---- rows' "
             "points | predicted below final |", "|---|---|---|---|---|---|"]
    for pid in sorted({r["project"] for r in results}):
        mine = [r for r in results if r["project"] == pid]
        over = [r for r in mine if r["predicted"] > r["final"]]
        beyond = [r for r in over if r["predicted"] - r["final"] > r["marked"]]
        under = [r for r in mine if r["predicted"] < r["final"]]
        agree = len(mine) - len(over) - len(under)
        lines.append(f"| {pid} | {len(mine)} | {agree} ({100 * agree / len(mine):.0f} %) | {len(over)} | "
                     f"{len(beyond)} | {len(under)} |")
    agree = sum(r["predicted"] == r["final"] for r in results)
    lines.append(f"| all | {len(results)} | {agree} ({100 * agree / len(results):.1f} %) | "
                 f"{sum(r['predicted'] > r['final'] for r in results)} | "
                 f"{sum(r['predicted'] - r['final'] > r['marked'] for r in results)} | "
                 f"{sum(r['predicted'] < r['final'] for r in results)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--bundle", type=Path, help="a built students' bundle (default: built here)")
    parser.add_argument("--out", type=Path, help="write every case's figures here (JSON)")
    parser.add_argument("--tables", type=Path, nargs="+", help="print the table of earlier --out files, run nothing")
    parser.add_argument("--again", type=Path, help="an earlier --out file: run only its cases --failing names")
    parser.add_argument("--failing", help="with --again: the check whose row did not earn full marks there")
    parser.add_argument("--cases", help="run only the cases whose names start with one of these (';'-separated)")
    parser.add_argument("--skip", type=int, default=0,
                        help="leave out each project's first SKIP cases (the reference is the first), to go on from "
                             "an earlier run")
    args = parser.parse_args()
    if args.tables:
        chosen = args.projects.split(",")
        cases = {(case["project"], case["case"]): case for path in args.tables for case in json.loads(path.read_text())}
        report([case for case in cases.values() if case["project"] in chosen])
        return
    course = load_course(paths.COURSE_FILE, private=False)
    chosen = args.projects.split(",")
    with tempfile.TemporaryDirectory(prefix="kit-bundle-") as tmp:
        bundle = args.bundle or build(KIT, Path(tmp) / "kit", chosen)
        results = []
        for pid in chosen:
            cases = ([None] + [m for m in ALL if m.folder == PROJECTS[pid].folder])[args.skip:]
            if args.cases:
                cases = [m for m in cases if (m.name if m else "reference").startswith(tuple(args.cases.split(";")))]
            if args.again:
                cases = [m for m in cases if (m.name if m else "reference") in failing(args.again, args.failing)]
            for mutant in cases:
                results.append(run_case(bundle, course, pid, mutant))
                r = results[-1]
                print(f"{pid} {r['case'][:60]:<60} predicted {r['predicted']:g} final {r['final']:g} "
                      f"({r['seconds']} s) {r['rows_differing'] or ''}", flush=True)
                if args.out:
                    args.out.write_text(json.dumps(results, indent=1))
    report(results)


def report(results: list[dict]) -> None:
    print(table(results))
    for r in results:
        if r["predicted"] != r["final"]:
            print(f"- {r['project']} {r['case']} ({r['check']}): predicted {r['predicted']:g}, final {r['final']:g}; "
                  f"rows {r['rows_differing']}")


if __name__ == "__main__":
    main()
