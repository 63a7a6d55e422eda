"""Benchmark: the similarity report's precision and recall on a synthetic class, and its cost at scale.

    .venv/bin/python -m benchmarks.similarity [--students 60] [--copies 4] [--projects A,B,C,D] [--seed 0]
    .venv/bin/python -m benchmarks.similarity --scale 1000 [--copies 10]       # time and memory, 1,000 students
    .venv/bin/python -m benchmarks.similarity --verify 4                      # honest students graded: correct?
    .venv/bin/python -m benchmarks.similarity --keep DIR [--reuse]            # keep the class (compare it again)

The synthetic class (tests/support/synthetic_class.py). Honest students are made by ``similarity_honest.py``:
every student writes every graded piece on their own, the way independent people do. Per piece, they take one of two
to four approaches written by hand (``similarity_pieces.py``: loops or numpy, a helper or not, masks or comparisons,
another order of the steps); they
may split parts of it into helper functions of their own; they order independent statements, name intermediate
results or nest them, build lists with loops or comprehensions, write conditionals as statements or expressions; and
they spell each expression their way (a reduction as a method or as numpy's function, ``len(x)`` or
``x.shape[0]``, ``x ** 2`` or ``x * x``, operands of commutative operators in either order, arguments by position or
by name, ...), with names, comments and docstrings of their own. Each student has habits of their own (how often
they make each of these decisions, drawn once per student), and every decision is drawn anew at every place it can
be made, independently of every other student. Why this models independent work: two students share code only where
the task (the stubs' signatures and docstrings, the library's calls) and the approach they chose dictate it, and
small pieces, which leave little to decide, come out alike as often as they do in a real class (``importance_ratio``
is a line of numpy for almost everyone), while a piece of twenty lines comes out alike only if two students happen
to make every one of its decisions the same way. No decision is drawn with the report in view. Every edit keeps
what the piece computes; ``--verify`` grades such students with the kit's own unit checks.

Planted copies, six kinds, each copying another student of the class (or the reference):
  verbatim     the source's project folder as it is
  renamed      every identifier the source introduced (not the stub's names) renamed consistently
  reordered    the student's functions of each module (graded ones and helpers) shuffled
  commented    comments, dead statements (``if False:`` blocks, unused variables) added inside those functions
  function     the copier's own honest work, with one of the source's three largest pieces (and its helpers)
               pasted in
  reference    the reference solution, its solution markers removed
A few students hand in the stubs unchanged. The report is run on the class (``autograder similarity``, this kit's
course, no ``--against``) and scored against the truth: a planted pair is *found* when it ranks above every honest
pair of its project (two honest students, or an honest student and the reference): listed before them in the report,
where pairs of equal similarity come by the share of the whole submissions they share; *flagged* when it reaches
the report's threshold; the honest pairs that reach it are counted too, and the students who hand in the stubs must
stay below it.

``--scale N`` builds N students with all four projects (notebooks included, as released), a share of them copiers,
and times ``autograder similarity`` on it in a child process: wall time and the child's peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


from autograder import paths
from tests.support.synthetic_class import KINDS, MODULES, make_class

KIT = paths.KIT_ROOT

MISSES_SHOWN = 8  # planted pairs ranked below an honest pair, listed per project


def run_report(root: Path, out: Path, projects: list[str], extra: list[str] = ()) -> tuple[float, float]:
    """``autograder similarity`` on the class in a child process: (wall seconds, peak resident MB of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "autograder", "--course", str(KIT), "similarity", str(root), "--out",
                    str(out), "--projects", ",".join(projects), *extra], check=True, cwd=KIT,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def read_pairs(out: Path) -> dict[str, list[dict]]:
    import csv

    pairs: dict[str, list[dict]] = {}
    with open(out / "similarity.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            pairs.setdefault(row["project"], []).append(row)
    return pairs


def score_class(truth: dict, out: Path, flag: float) -> dict:
    """Per project and kind: planted pairs found (ranked above every honest pair: listed before it, in the report's
    order) and flagged; honest pairs above the threshold; the highest honest score."""
    pairs = read_pairs(out)
    results = {}
    for pid, facts in truth.items():
        rows = pairs.get(pid, [])
        score = {frozenset((r["submission"], r["compared_with"])): float(r["similarity"]) for r in rows}
        rank = {frozenset((r["submission"], r["compared_with"])): n for n, r in enumerate(rows)}
        copiers = {c for c, _, _ in facts["planted"]}
        related = {frozenset((c, s)) for c, s, _ in facts["planted"]}
        ref_copiers = [c for c, _, k in facts["planted"] if k == "reference"]
        related |= {frozenset((a, b)) for a in ref_copiers for b in ref_copiers if a != b}
        honest_people = set(facts["honest"]) | set(facts["stub_only"]) | {"reference"}
        honest = [key for key in score if key not in related and key <= honest_people]
        honest_scores = [score[key] for key in honest]
        top_honest = max(honest_scores, default=0.0)
        first_honest = min((rank[key] for key in honest), default=len(rows))
        kinds, missed = {}, []
        for copier, source, kind in facts["planted"]:
            value = score.get(frozenset((copier, source)), 0.0)
            found = rank.get(frozenset((copier, source)), len(rows)) < first_honest
            if not found:
                missed.append((kind, facts.get("copied", {}).get(copier, ""), value))
            entry = kinds.setdefault(kind, {"pairs": 0, "found": 0, "flagged": 0, "lowest": 1.0})
            entry["pairs"] += 1
            entry["found"] += found
            entry["flagged"] += value >= flag
            entry["lowest"] = min(entry["lowest"], value)
        flagged_rows = [key for key, v in score.items() if v >= flag]
        false_flags = [key for key in flagged_rows if key not in related and not (key & copiers)]
        results[pid] = {"kinds": kinds, "missed": missed, "top_honest": top_honest, "honest_pairs": len(honest_scores),
                        "honest_flagged": sum(v >= flag for v in honest_scores), "flagged": len(flagged_rows),
                        "false_flags": len(false_flags),
                        "stub_only_top": max([v for key, v in score.items() if key & set(facts["stub_only"])],
                                             default=0.0)}
    return results


def print_results(results: dict, flag: float) -> None:
    print(f"\nflag threshold {flag:.2f}")
    print("| project | kind | planted pairs | ranked above every honest pair | flagged | lowest score |")
    print("|---|---|---|---|---|---|")
    total = Counter()
    for pid, r in results.items():
        for kind in KINDS:
            k = r["kinds"].get(kind)
            if not k:
                continue
            total["pairs"] += k["pairs"]
            total["found"] += k["found"]
            total["flagged"] += k["flagged"]
            print(f"| {pid} | {kind} | {k['pairs']} | {k['found']} | {k['flagged']} | {k['lowest']:.2f} |")
    print(f"| all | all | {total['pairs']} | {total['found']} ({total['found'] / max(total['pairs'], 1):.0%}) | "
          f"{total['flagged']} ({total['flagged'] / max(total['pairs'], 1):.0%}) | |")
    for pid, r in results.items():
        missed = sorted(r["missed"], key=lambda m: -m[2])
        for kind, piece, value in missed[:MISSES_SHOWN]:
            print(f"{pid}: a {kind} copy{' of ' + piece.split(':')[1] if piece else ''} scored {value:.2f}, "
                  f"ranked below an honest pair (the highest scored {r['top_honest']:.2f})")
        if len(missed) > MISSES_SHOWN:
            print(f"{pid}: and {len(missed) - MISSES_SHOWN} more planted pairs ranked below an honest pair")
    print("\n| project | honest pairs scored | highest honest score | honest pairs flagged | "
          "flagged pairs, of which not planted | stub-only students' highest |")
    print("|---|---|---|---|---|---|")
    for pid, r in results.items():
        print(f"| {pid} | {r['honest_pairs']} | {r['top_honest']:.2f} | {r['honest_flagged']} | "
              f"{r['flagged']}, {r['false_flags']} | {r['stub_only_top']:.2f} |")


def verify(count: int, projects: list[str], seed: int) -> None:
    """Grade ``count`` honest students per project with the kit's unit checks (public seeds): every one must pass."""
    from autograder.loader import load_course
    from autograder.grading import grade

    course = load_course(KIT / "course.yml", private=False)
    quick = {"A": ["A.gae", "A.batch", "A.ratio", "A.clip_gradient", "A.value_entropy", "A.update"],
             "B": ["B.defaults", "B.switches", "B.summary"],
             "C": ["C.entropy", "C.kl_clip", "C.explained_variance", "C.td_q", "C.return_drop", "C.own_labels"],
             "D": ["D.weights", "D.kl_penalty", "D.enumeration", "D.clip_gradient", "D.grpo_step",
                   "D.price_exploit", "D.chapter_tables"]}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_class(root, count, 0, projects, seed, stubs=0)
        for sid in sorted(p.name for p in root.iterdir()):
            for pid in projects:
                folder = root / sid / MODULES[pid][0]
                if pid == "C":
                    shutil.copytree(KIT / "assignments" / "C_diagnosis" / "logs", folder / "logs")
                report = grade(folder, course, seed_set="public", projects=[pid], checks=quick[pid]).report
                failed = [c.id for c in report.projects[pid].checks if not c.passed]
                print(f"{sid} {pid}: {report.projects[pid].score:g} / {report.projects[pid].max_score:g}"
                      f"{'  FAILED ' + ', '.join(failed) if failed else ''}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60, help="students besides the stub-only ones")
    parser.add_argument("--copies", type=int, default=4, help="planted copies of each kind, per project")
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=int, help="time and measure the report on this many students")
    parser.add_argument("--verify", type=int, help="grade this many honest students per project")
    parser.add_argument("--keep", help="write the class and the report here instead of a temporary folder")
    parser.add_argument("--reuse", action="store_true", help="with --keep: compare the class kept there last time")
    args = parser.parse_args()
    projects = args.projects.split(",")
    if args.verify:
        verify(args.verify, projects, args.seed)
        return
    from autograder.similarity.index import FLAG

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        root, out, kept = base / "class", base / "report", base / "truth.json"
        students = args.scale or args.students
        started = time.perf_counter()
        if args.reuse and kept.is_file():
            truth = json.loads(kept.read_text())
        else:
            shutil.rmtree(root, ignore_errors=True)
            truth = make_class(root, students, args.copies, projects, args.seed, notebooks=bool(args.scale))
            kept.write_text(json.dumps(truth, default=str))
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        print(f"class: {students} students + 3 stub-only, projects {','.join(projects)}, {args.copies} copies of "
              f"each of {len(KINDS)} kinds per project, {size / 1e6:.0f} MB, made in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        wall, peak = run_report(root, out, projects)
        print(f"autograder similarity: {wall:.1f} s wall, peak resident memory {peak:.0f} MB")
        print_results(score_class(truth, out, FLAG), FLAG)
        print(json.dumps({"students": students, "wall_seconds": round(wall, 1), "peak_mb": round(peak)}))


if __name__ == "__main__":
    main()
