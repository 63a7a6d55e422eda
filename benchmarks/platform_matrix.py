"""Benchmark: Project B's table made on one machine and graded on another, for every pair of OpenBLAS kernels.

    .venv/bin/python -m benchmarks.platform_matrix [--kernels default,Haswell,Sandybridge,Prescott]
                                                   [--python PATH] [--out DIR] [--updates 60]

For each kernel, runs the reference's B harness (``python ablation.py``'s runs, all 18 at the course's budget) in a
process with ``OPENBLAS_CORETYPE`` set to that kernel (``default``: unset, the machine's own), as a student on that
CPU would; then grades each folder's B.table in a process under every kernel, and prints the 16 scores, the largest
gaps the judge measured between a replayed update and the student's (parameters, and Adam's first moment on Adam's
scale) and the size of the folder a student hands in. ``--python`` makes the results with another interpreter (a
venv with the oldest numpy the kit admits, say) and grades them with this one. Every figure is measured in this run:
nothing is compared with a number from another machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
MAKE = """
import sys
import ablation
from rlkit.runproof import run_name, save_runs
ablation.N_UPDATES = int(sys.argv[1])
names = ["baseline", *ablation.ablated()]
jobs = [(name, seed) for name in names for seed in ablation.SEEDS]
from concurrent.futures import ProcessPoolExecutor
with ProcessPoolExecutor(2) as pool:
    done = list(pool.map(ablation.run_one, jobs))
save_runs(ablation.RUNS, {run_name(*job): proof for job, (_, proof) in zip(jobs, done)})
ablation.save_results({name: [done[i * len(ablation.SEEDS) + j][0] for j in range(len(ablation.SEEDS))]
                       for i, name in enumerate(names)})
import numpy
print(numpy.__version__)
"""


def environment(kernel: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    if kernel != "default":
        env["OPENBLAS_CORETYPE"] = kernel
    return env


def make_results(folder: Path, kernel: str, python: str, updates: int) -> str:
    """The reference's B folder in ``folder`` with results.json and runs.npz made under ``kernel``; numpy's version."""
    shutil.copytree(KIT / "solutions" / "B_ablations", folder, ignore=shutil.ignore_patterns("*.ipynb", "*.png",
                                                                                           "__pycache__"))
    done = subprocess.run([python, "-c", MAKE, str(updates)], cwd=folder, env=environment(kernel), check=True,
                          capture_output=True, text=True)
    return done.stdout.strip().splitlines()[-1]


def grade(folder: Path, kernel: str, updates: int) -> dict:
    """B.table of ``folder`` graded in a process under ``kernel``, with the judge's largest gaps."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.platform_matrix", "--grade", str(folder), "--updates",
                           str(updates)], env=environment(kernel), check=True, capture_output=True, text=True, cwd=KIT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def grade_here(folder: Path, updates: int) -> dict:
    from autograder import paths
    from autograder.loader import load_course
    from autograder.grading import grade as grade_submission
    from autograder.projects._shared import audits
    from autograder.projects.b_ablations import student_runs
    from benchmarks.replay_gaps import spy_on_gaps

    course = load_course(paths.COURSE_FILE, private=False)
    table = course.projects["B"].checks["B.table"]
    course.projects["B"].checks["B.table"] = table.model_copy(update={"bar": {**table.bar, "n_updates": updates}})
    audits.start_all = lambda *args, **kwargs: None  # the judge replays in this process, where the gaps are seen
    largest, maxima, replay_own = spy_on_gaps(), {"parameters": 0.0, "moments": 0.0}, student_runs.replay_own

    def spied(*args):  # the spy keeps one run's gaps: start afresh for each run, keep the largest of all
        largest["reset"]()
        try:
            return replay_own(*args)
        finally:
            maxima.update({key: max(maxima[key], largest[key]) for key in maxima})

    student_runs.replay_own = spied
    report = grade_submission(folder.parent, course, seed_set="public", checks=["B.table"]).report.to_json()
    check = report["projects"]["B"]["checks"][0]
    return {"score": check["score"], "max": check["max_score"], "message": check["message"][:200], **maxima}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default="default,Haswell,Sandybridge,Prescott")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that makes the results")
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--reuse", action="store_true", help="grade the folders --out already holds")
    parser.add_argument("--grade", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.grade:
        print(json.dumps(grade_here(args.grade, args.updates)))
        return
    kernels = args.kernels.split(",")
    root = args.out or Path(tempfile.mkdtemp(prefix="platform-matrix-"))
    made = {}
    for kernel in kernels:
        folder = root / f"made-{kernel}" / "B_ablations"
        folder.parent.mkdir(parents=True, exist_ok=True)
        version = "as made before" if args.reuse else make_results(folder, kernel, args.python, args.updates)
        size = sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
        made[kernel] = folder
        print(f"made under {kernel} (numpy {version}): folder {size / 2**20:.2f} MB, runs.npz "
              f"{(folder / 'runs.npz').stat().st_size / 2**20:.2f} MB", flush=True)
    print(f"\n{'made under':12s} {'graded under':12s} {'B.table':>8s} {'param gap':>10s} {'m gap':>8s}")
    full = 0
    for kernel, folder in made.items():
        for judge in kernels:
            out = grade(folder, judge, args.updates)
            full += out["score"] == out["max"]
            print(f"{kernel:12s} {judge:12s} {out['score']:4.2f}/{out['max']:<3g} {out['parameters']:10.3g} "
                  f"{out['moments']:8.3g}" + ("" if out["score"] == out["max"] else f"  {out['message']}"), flush=True)
    print(f"\nfull marks: {full} of {len(made) * len(kernels)} pairs")


if __name__ == "__main__":
    main()
