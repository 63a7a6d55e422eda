"""Benchmark: does the students' checker predict final grading? For the reference and every planted bug of tests/
(and, asked for, the correct rewrites of tests/ and a sample of the mechanical mutants of tests/support/mutations.py),
the total ``capstone-check P`` predicts ("Predicted at final grading: X/Y", or "X/Y at least, Z/Y at most" where it
cannot tell) against the total the grader gives the same submission (every check of the project, on the grading seeds
unless ``--seed-set public``; C's own labels on the example logs the reference holds, as for a course without a
secret). A case is equal (one number, final grading's), bounded (a range holding final grading's), over (its least
above final grading's) or under (its most below).

    .venv/bin/python -m benchmarks.kit_prediction [--projects A,B,C,D] [--bundle DIR] [--out FILE.json]
    .venv/bin/python -m benchmarks.kit_prediction --projects C,D --kinds rewrite,generated --generated 20 --out CD.json
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
from dataclasses import dataclass
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from autograder.student_kit import build
from benchmarks.mutant_feedback import spread
from tests.support.mutants import ALL, EQUIVALENT
from tests.support.mutations import MODULES, generate

KIT = Path(__file__).resolve().parent.parent
PREDICTED = re.compile(r"Predicted at final grading: ([\d.]+)/([\d.]+)(?: at least, ([\d.]+)/[\d.]+ at most)?")
KINDS = ("reference", "planted", "rewrite", "generated")


@dataclass(frozen=True)
class Case:
    """A submission: the reference's folder with one module changed (a snippet replaced, or a whole module)."""
    kind: str
    name: str
    check: str = ""  # the check a planted bug must lose
    module: str = ""
    old: str = ""
    new: str = ""
    source: str = ""  # a generated mutant's whole module


def cases_of(pid: str, kinds: list[str], generated: int | None) -> list[Case]:
    folder = PROJECTS[pid].folder
    made = {"reference": [Case("reference", "reference")],
            "planted": [Case("planted", m.name, m.check, m.module, m.old, m.new) for m in ALL if m.folder == folder],
            "rewrite": [Case("rewrite", f"rewrite: {e.name}", "", e.module, e.old, e.new)
                        for e in EQUIVALENT if e.folder == folder],
            "generated": [Case("generated", m.id, "", m.module, source=m.source)
                          for m in spread(generate(pid), generated)] if pid in MODULES else []}
    return [case for kind in kinds for case in made[kind]]


def submission(into: Path, pid: str, case: Case) -> Path:
    """A copy of the reference's project folder, with ``case``'s change made."""
    folder = PROJECTS[pid].folder
    shutil.copytree(paths.SOLUTIONS / folder, into / folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = into / folder / case.module
    if case.source:
        path.write_text(case.source)
    elif case.old:
        source = path.read_text()
        assert source.count(case.old) == 1, case.name
        path.write_text(source.replace(case.old, case.new))
    return into


def checker(bundle: Path, pid: str, root: Path) -> tuple[float, float, dict[str, str]]:
    """The checker's predicted total (the least and the most) and each row's shown score, from its printed output."""
    env = {**os.environ, "PYTHONPATH": str(bundle)}
    done = subprocess.run([sys.executable, "-m", "capstone_check", pid, "--folder", str(root / PROJECTS[pid].folder)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=3600)
    found = PREDICTED.search(done.stdout)
    if found is None:
        raise RuntimeError(f"no prediction in the checker's output:\n{done.stdout}\n{done.stderr}")
    rows = {words[0]: words[1] for words in map(str.split, done.stdout.splitlines())
            if len(words) > 2 and words[0].startswith(f"{pid}.")}
    return float(found.group(1)), float(found.group(3) or found.group(1)), rows


def grader(course, pid: str, root: Path, seed_set: str) -> tuple[float, dict[str, float]]:
    report = grade(root, course, seed_set=seed_set, projects=[pid]).report  # no id: C's labels of the example logs
    project = report.projects[pid]
    return project.score, {check.id: check.score for check in project.checks}


def final_only_points(bundle: Path, pid: str) -> float:
    data = json.loads((bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())
    return sum(spec["points"] for spec in data["checks"].values() if spec["kind"] == "final_only")


def failing(earlier: Path, check: str) -> set[str]:
    """The cases of an earlier run whose row ``check`` did not earn full marks in the checker's output."""
    return {case["case"] for case in json.loads(earlier.read_text())
            if case["rows_here"].get(check, "").split("/")[0] != case["rows_here"].get(check, "/").split("/")[1]}


def run_case(bundle: Path, course, pid: str, case: Case, seed_set: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="kit-prediction-") as tmp:
        root = submission(Path(tmp), pid, case)
        started = time.perf_counter()
        least, most, shown = checker(bundle, pid, root)
        final, rows = grader(course, pid, root, seed_set)
    differing = {cid: f"here {shown.get(cid)}, final {score:g}" for cid, score in rows.items()
                 if shown.get(cid, "").split("/")[0] not in (f"{score:g}", "-")}
    return {"project": pid, "kind": case.kind, "case": case.name, "check": case.check, "seed_set": seed_set,
            "predicted": least, "most": most, "final": final, "marked": final_only_points(bundle, pid),
            "rows_differing": differing, "rows_here": shown, "rows_final": rows,
            "seconds": round(time.perf_counter() - started, 1)}


def verdict(r: dict) -> str:
    """equal, bounded (a range that holds final grading's total), over or under."""
    least, most = r["predicted"], r.get("most", r["predicted"])
    if least > r["final"]:
        return "over"
    if most < r["final"]:
        return "under"
    return "equal" if least == most else "bounded"


def table(results: list[dict]) -> str:
    lines = ["| project | kind | cases | predicted = final | a range holding final (its mean width, points) | "
             "predicted above final | predicted below final |", "|---|---|---|---|---|---|---|"]
    groups = sorted({(r["project"], r.get("kind", "planted")) for r in results})
    for name, mine in [(group, [r for r in results if (r["project"], r.get("kind", "planted")) == group])
                       for group in groups] + [(("all", ""), results)]:
        counts = {v: sum(verdict(r) == v for r in mine) for v in ("equal", "bounded", "over", "under")}
        widths = [r["most"] - r["predicted"] for r in mine if verdict(r) == "bounded"]
        width = f" ({sum(widths) / len(widths):.1f})" if widths else ""
        lines.append(f"| {name[0]} | {name[1]} | {len(mine)} | {counts['equal']} "
                     f"({100 * counts['equal'] / len(mine):.1f} %) | {counts['bounded']}{width} | {counts['over']} | "
                     f"{counts['under']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--kinds", default="reference,planted", help=f"which cases, of {', '.join(KINDS)}")
    parser.add_argument("--generated", type=int, help="with --kinds generated: N mutants a project, at even steps")
    parser.add_argument("--seed-set", choices=["public", "grading"], default="grading",
                        help="the seeds final grading is run on (default: the course's grading seeds)")
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
    chosen, kinds = args.projects.split(","), args.kinds.split(",")
    with tempfile.TemporaryDirectory(prefix="kit-bundle-") as tmp:
        bundle = args.bundle or build(KIT, Path(tmp) / "kit", chosen)
        results = []
        for pid in chosen:
            cases = cases_of(pid, kinds, args.generated)[args.skip:]
            if args.cases:
                cases = [c for c in cases if c.name.startswith(tuple(args.cases.split(";")))]
            if args.again:
                cases = [c for c in cases if c.name in failing(args.again, args.failing)]
            for case in cases:
                results.append(run_case(bundle, course, pid, case, args.seed_set))
                r = results[-1]
                print(f"{pid} {r['case'][:60]:<60} predicted {r['predicted']:g}"
                      + (f" to {r['most']:g}" if r["most"] != r["predicted"] else "")
                      + f" final {r['final']:g} ({r['seconds']} s) {r['rows_differing'] or ''}", flush=True)
                if args.out:
                    args.out.write_text(json.dumps(results, indent=1))
    report(results)


def one_number(results: list[dict]) -> str:
    """What the ranges would give said as one number each, at their least or at their most: the check says a range
    only where one number would fall short of final grading on some cases or go above it on others."""
    said = []
    for end, key in (("least", "predicted"), ("most", "most")):
        told = [r.get(key, r["predicted"]) for r in results]
        equal = sum(t == r["final"] for t, r in zip(told, results))
        above = sum(t > r["final"] for t, r in zip(told, results))
        said.append(f"at its {end}, {equal} of {len(results)} equal ({100 * equal / len(results):.1f} %), "
                    f"{above} above, {len(results) - equal - above} below")
    return f"Each range said as one number: {'; '.join(said)}."


def report(results: list[dict]) -> None:
    print(table(results))
    print(one_number(results))
    for r in results:
        if verdict(r) in ("over", "under"):
            most = r.get("most", r["predicted"])
            print(f"- {r['project']} {r['case']} ({r['check']}): {verdict(r)}, predicted {r['predicted']:g}"
                  + (f" to {most:g}" if most != r["predicted"] else "")
                  + f", final {r['final']:g}; rows {r['rows_differing']}")


if __name__ == "__main__":
    main()
