"""Benchmark: grading throughput of a class, ``--jobs 1``, ``--jobs 2`` and a two-worker Dask cluster on this machine.

    .venv/bin/python -m benchmarks.grade_all [--students 4] [--projects D] [--rounds 3] [--modes jobs1,jobs2,cluster]
                                             [--isolation uid]

Builds a class of copies of the reference in a temporary folder and grades it from scratch in each mode, the modes
interleaved round after round so that a busy machine's load falls on all of them alike. The cluster is a ``dask
scheduler`` and two ``dask worker --nthreads 1`` processes started here (the dask extra), started once and left
running across rounds, as a course's cluster would be. Prints each run and, per mode, the median wall time, students
per minute and CPU seconds per student.

CPU is the whole tree's: the grade-all process and its children, and for the cluster also what the worker processes
and their children spent during the run. Under bubblewrap a check's CPU is spent in a pid namespace whose processes
the grader does not wait for, so it is not counted (``docs/benchmarks.md``); hence the default ``--isolation uid``,
which grades in a copy of course.yml with ``limits.isolation: uid`` (bubblewrap costs about 2 ms per check).
"""

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml

from autograder.projects import PROJECTS

KIT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_cpu(pids: list[int]) -> float:
    """CPU seconds of these processes, their waited-for children included."""
    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def start_cluster(folder: Path) -> tuple[str, list[subprocess.Popen], list[int]]:
    file = folder / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "start_new_session": True}
    started = [subprocess.Popen([BIN / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", file], **quiet)]
    while not file.exists():
        time.sleep(0.2)
    for name in ("w1", "w2"):
        started.append(subprocess.Popen([BIN / "dask", "worker", "--scheduler-file", file, "--nthreads", "1",
                                         "--no-dashboard", "--name", name, "--host", "127.0.0.1"], **quiet))
    address = json.loads(file.read_text())["address"]
    import distributed

    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=120)
        workers = client.run(os.getpid)  # the worker processes, under their nannies
    return address, started, list(workers.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--projects", default="D")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="jobs1,jobs2,cluster")
    parser.add_argument("--isolation", default="uid", choices=["auto", "bubblewrap", "uid"])
    args = parser.parse_args()
    modes = args.modes.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        course = yaml.safe_load((KIT / "course.yml").read_text())
        course["limits"]["isolation"] = args.isolation
        Path(tmp, "course.yml").write_text(yaml.safe_dump(course))
        for i in range(args.students):
            for pid in args.projects.split(","):
                folder = PROJECTS[pid].folder
                shutil.copytree(KIT / "solutions" / folder, Path(tmp, "class", f"s{i:02d}", folder),
                                ignore=shutil.ignore_patterns("*.ipynb", "__pycache__", "*.png"))
        cluster = start_cluster(Path(tmp)) if "cluster" in modes else None
        walls, cpus = {m: [] for m in modes}, {m: [] for m in modes}
        try:
            for round_ in range(args.rounds):
                for mode in modes:
                    out = Path(tmp, f"out-{mode}-{round_}")
                    where = ["--jobs", mode[4:]] if mode.startswith("jobs") else ["--scheduler", cluster[0]]
                    workers = cluster[2] if mode == "cluster" else []
                    started, cpu0, wcpu0 = time.perf_counter(), children_cpu(), tree_cpu(workers)
                    subprocess.run([BIN / "autograder", "grade-all", Path(tmp, "class"), "--out", out, "--projects",
                                    args.projects, "--course", Path(tmp, "course.yml"), *where], check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    wall = time.perf_counter() - started
                    cpu = children_cpu() - cpu0 + tree_cpu(workers) - wcpu0
                    walls[mode].append(wall)
                    cpus[mode].append(cpu)
                    print(f"round {round_ + 1}, {mode}: {wall:6.1f} s wall, {args.students * 60 / wall:5.2f} "
                          f"students/min, {cpu / args.students:5.1f} s CPU per student", flush=True)
        finally:
            for process in reversed(cluster[1] if cluster else []):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        print(f"\n{args.students} reference submissions ({args.projects}), isolation {args.isolation}, "
              f"median of {args.rounds} rounds (load average now {os.getloadavg()[0]:.1f}):")
        for mode in modes:
            wall = statistics.median(walls[mode])
            print(f"  {mode:8s} {wall:6.1f} s wall ({min(walls[mode]):.1f}-{max(walls[mode]):.1f}), "
                  f"{args.students * 60 / wall:5.2f} students/min, "
                  f"{statistics.median(cpus[mode]) / args.students:5.1f} s CPU per student")


if __name__ == "__main__":
    main()
