"""Benchmark: how long each project's notebook takes to run top to bottom, as a student runs it.

    .venv/bin/python -m benchmarks.notebook_times [--projects A,D] [--runs 1]

Each run copies the released folder (assignments/<P>/), puts the reference modules in place of the stubs (so every
cell does the work a finished student's notebook does), and executes the notebook with nbclient in a fresh kernel:
the experiments, then the check cells, which grade with the public checks and seeds. Prints, per project, the wall
time of the whole notebook and of the experiments alone (the check cells left out), and the CPU count.
"""

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import nbclient
import nbformat

from autograder.nbcells import TAG
from autograder.projects import PROJECTS

KIT = Path(__file__).resolve().parent.parent


def run_once(folder_name: str, with_checks: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="notebook-times-") as tmp:
        folder = Path(shutil.copytree(KIT / "assignments" / folder_name, Path(tmp) / folder_name))
        for module in (KIT / "solutions" / folder_name).glob("*.py"):
            shutil.copy(module, folder / module.name)
        made_by_students = next(p.made_by_students for p in PROJECTS.values() if p.folder == folder_name)
        for made in made_by_students:  # the student's notebook makes these itself
            (folder / made).unlink(missing_ok=True)
        notebook = nbformat.read(folder / f"{folder_name}.ipynb", as_version=4)
        if not with_checks:
            notebook.cells = [c for c in notebook.cells if TAG not in c.metadata.get("tags", [])]
        client = nbclient.NotebookClient(notebook, timeout=1800, kernel_name="python3", allow_errors=False,
                                         resources={"metadata": {"path": str(folder)}})
        started = time.perf_counter()
        client.execute()
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    for pid in args.projects.split(","):
        folder = PROJECTS[pid].folder
        for run in range(args.runs):
            whole = run_once(folder, with_checks=True)
            experiments = run_once(folder, with_checks=False)
            print(f"{pid} ({folder}) run {run + 1}: whole notebook {whole:.0f} s, "
                  f"experiments alone {experiments:.0f} s (load average {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
