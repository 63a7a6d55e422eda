"""Benchmark: grading throughput of a class, ``--jobs 1`` against ``--jobs 2``.

    .venv/bin/python benchmarks/grade_all.py [--students 10] [--projects D]

Builds a class of copies of the reference in a temporary folder, grades it twice from scratch, prints both wall
times and their ratio.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from autograder.projects import PROJECTS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--projects", default="D")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp, "course.yml")
        text = (KIT / "course.yml").read_text()
        course.write_text(text)
        for i in range(args.students):
            for pid in args.projects.split(","):
                folder = PROJECTS[pid].folder
                shutil.copytree(KIT / "solutions" / folder, Path(tmp, "class", "submitted", f"s{i:02d}", folder))
        walls = {}
        for jobs in (1, 2):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(Path(tmp, "class")), "--out",
                            str(Path(tmp, f"out{jobs}")), "--jobs", str(jobs)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls[jobs] = time.perf_counter() - started
            print(f"{args.students} reference submissions ({args.projects}), --jobs {jobs}: {walls[jobs]:.1f} s")
        print(f"speed-up of --jobs 2: {walls[1] / walls[2]:.2f}x")


if __name__ == "__main__":
    main()
