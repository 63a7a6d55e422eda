"""Benchmark: how far the students' check is from saying final grading's row. On the public seeds, each check of the
students' bundle and final grading's judge are run on the same submission (the reference, the stubs and every planted
bug of tests/projects/<id>/mutants.py, each on the check it is planted for), in this process, as the student-kit
tests run them. Per check it prints how many rows were compared, how many have the same score and how many the same
message, byte for byte; then every pair of messages that differ, when ``--show`` asks.

    nice -n 10 .venv/bin/python -m benchmarks.one_judge --projects A,D --show 3
    nice -n 10 .venv/bin/python -m benchmarks.one_judge --projects C --with C.fresh_runs

Run from the repository's root. The training checks (A.bar, C.fresh_runs, D's sweeps) are left out unless ``--with``
names them: they train for seconds to minutes each (C's fresh runs once per machine, then seconds), and
tests/test_one_judge.py holds their rows in its slow lane.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import capstone_check
from autograder import paths
from autograder.projects import PROJECTS
from autograder.student_kit import build
from tests.support.mutants import ALL
from tests.support.student_kit_verdicts import TRAINING, bundle_rows, grader_rows, public_checks

FOLDERS = {PROJECTS[pid].folder: pid for pid in "ABCD"}


def submission(tmp: Path, source: Path, folder: str, edit: tuple[str, str, str] | None = None) -> Path:
    """A copy of ``source/folder`` under a fresh root, with ``edit`` (module, old, new) made once."""
    root = Path(tempfile.mkdtemp(dir=tmp))
    shutil.copytree(source / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb", "*.png"))
    if edit:
        module, old, new = edit
        text = (root / folder / module).read_text(encoding="utf-8")
        (root / folder / module).write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def compared(bundle: Path, root: Path, pid: str, checks: list[str]) -> dict[str, tuple[bool, bool, str, str]]:
    """Per check: (same score, same message, final grading's message, the bundle's)."""
    graded, checked = grader_rows(root, pid, checks), bundle_rows(bundle, root, pid, checks)
    return {cid: (graded[cid][0] == checked[cid][0], graded[cid][1] == checked[cid][1], graded[cid][1],
                  checked[cid][1]) for cid in checks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="A,B,C,D")
    parser.add_argument("--show", type=int, default=0, help="pairs of differing messages to print per check")
    parser.add_argument("--with", dest="training", default="", help="training checks to compare too, comma-separated")
    args = parser.parse_args()
    chosen = [p.strip().upper() for p in args.projects.split(",")]
    left_out = TRAINING - {c.strip() for c in args.training.split(",")}
    tally = defaultdict(lambda: [0, 0, 0])  # check -> [rows, same score, same message]
    shown = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bundle = build(paths.KIT_ROOT, tmp / "bundle", projects=chosen)
        capstone_check.__path__.append(str(bundle / "capstone_check"))  # the public halves, by their bundled names
        cases = []
        for pid in chosen:
            folder = PROJECTS[pid].folder
            every = [c for c in public_checks(pid) if c not in left_out]
            cases += [(pid, "reference", paths.SOLUTIONS, folder, None, every),
                      (pid, "stubs", paths.KIT_ROOT / "assignments", folder, None, every)]
            cases += [(pid, m.name, paths.SOLUTIONS, folder, (m.module, m.old, m.new), [m.check])
                      for m in ALL if FOLDERS.get(m.folder) == pid and m.check not in left_out]
        for pid, name, source, folder, edit, checks in cases:
            offered = set(bundle_checks(bundle, pid))
            checks = [c for c in checks if c in offered]
            if not checks:
                continue
            for cid, (score, message, graded, checked) in compared(bundle, submission(tmp, source, folder, edit),
                                                                     pid, checks).items():
                tally[cid][0] += 1
                tally[cid][1] += score
                tally[cid][2] += message
                if not message and len(shown[cid]) < args.show:
                    shown[cid].append((name, graded, checked))
            print(f"{pid} {name}: done", flush=True)
    print(f"\n{'check':<22}{'rows':>6}{'same score':>12}{'same message':>14}")
    for cid, (rows, score, message) in tally.items():
        print(f"{cid:<22}{rows:>6}{score:>12}{message:>14}")
    rows, score, message = (sum(t[i] for t in tally.values()) for i in range(3))
    print(f"{'all':<22}{rows:>6}{score:>12}{message:>14}")
    for cid, pairs in shown.items():
        for name, graded, checked in pairs:
            print(f"\n{cid} on {name}:\n  final grading: {graded}\n  the checker:   {checked}")


def bundle_checks(bundle: Path, pid: str) -> list[str]:
    """The checks the bundle runs itself (not those it leaves to final grading)."""
    import json

    checks = json.loads((bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())["checks"]
    return [cid for cid, spec in checks.items() if spec["kind"] != "final_only"]


if __name__ == "__main__":
    main()
