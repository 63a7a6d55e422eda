"""Benchmark: the class page's mistakes for a synthetic class, checked against what was planted.

    .venv/bin/python -m benchmarks.class_findings [--students 200] [--projects A,B,C,D] [--out DIR]

Each planted bug of tests/projects/<id>/mutants.py is graded once, on the public seeds and on its own check only; the
class is then ``--students`` students, student i holding the report of planted bug i modulo their number (each
student one mistake: grading every student anew would only repeat those gradings). The summary page and findings.csv
are written as grade-all writes them, and each finding's count on them is checked against the count planted. Prints
the share of planted bugs named by their own finding, per project, and the five most frequent findings.
"""

import argparse
import csv
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from autograder import paths
from autograder.classroom.rows import Row
from autograder.loader import load_course
from autograder.grading import grade
from autograder.report.model import Report
from autograder.report.summary import write_summary
from tests.support.grading import copy_reference, mutate, write_submission
from tests.support.mutants import ALL

KIT = Path(__file__).resolve().parent.parent


def graded_once(mutant, course, folder: Path) -> Report:
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    root = copy_reference(folder, mutant.folder)
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    return grade(root, course, seed_set="public", checks=[mutant.check]).report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--out", type=Path, default=None, help="where summary.html and findings.csv go")
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    planted = [m for m in ALL if m.check.split(".")[0] in args.projects.split(",")]
    started, reports = time.perf_counter(), []
    with tempfile.TemporaryDirectory() as tmp:
        for i, mutant in enumerate(planted):
            reports.append(graded_once(mutant, course, Path(tmp) / str(i)))
    graded = time.perf_counter() - started
    rows = [Row(f"student{i:03d}", "graded", reports[i % len(planted)]) for i in range(args.students)]
    out = args.out or Path(tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    write_summary(rows, course, out / "summary.html", sorted({m.check[0] for m in planted}))
    shown = {(r["check"], r["finding"]): int(r["students"]) for r in csv.DictReader((out / "findings.csv").open())}
    want = Counter((check.id, f.id) for row in rows for check in row.report.checks() for f in check.findings)
    assert shown == dict(want), "findings.csv's counts are not the class's"
    page = (out / "summary.html").read_text()
    assert all(f"<td class='score'>{n}</td>" in page for n in want.values()), "summary.html's counts differ"
    own = Counter(m.check[0] for m, r in zip(planted, reports)
                  if m.finding and m.finding in {f.id for c in r.checks() for f in c.findings})
    total = Counter(m.check[0] for m in planted)
    print(f"{len(planted)} planted bugs graded once each in {graded:.0f} s; a class of {args.students} in {out}")
    for pid in sorted(total):
        print(f"  project {pid}: {own[pid]} of {total[pid]} planted bugs named by their own finding "
              f"({own[pid] / total[pid]:.0%})")
    print(f"  all: {sum(own.values())} of {len(planted)} ({sum(own.values()) / len(planted):.0%})")
    print("  most frequent on the page: " + "; ".join(f"{fid} ({n})" for (_, fid), n in want.most_common(5)))
    print("  findings.csv and summary.html hold the class's counts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
