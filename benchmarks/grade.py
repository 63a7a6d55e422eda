"""Benchmark: grading the reference, as a whole command, wall time and peak memory of the process tree.

    .venv/bin/python -m benchmarks.grade [--projects A,D] [--runs 5] [--seeds grading] [--jobs 1] [--isolation uid]
                                         [--vs DIR | --floor] [--warm-up] [--cold]

Without --projects it grades every registered project, which is the figure to hold against Gradescope's default
container (10 minutes, 768 MB, run with --jobs 1). Prints each run and the median. Peak memory is the largest sum of
resident memory over the grader and all its children, sampled every 20 ms (psutil), so it is what a container's
memory limit would see. CPU seconds are the whole tree's, sandboxed children included where a cgroup can count them
(``cpu_meter``). ``--vs DIR`` grades another checkout of the kit (an export of an earlier commit) in turn with this
one, run for run, and prints the ratio of each pair, so that both see the same load. ``--floor`` does the same with
an export of this commit (HEAD) whose judge replays nothing (``replay.audit`` returns at once, so the proofs of
learning are not checked and their checks fail): the no-audit floor, what any grading that keeps the chapter's bars
costs; it prints the grader's own CPU, this kit's less the floor's, as a share of the floor. A kit's first grading
trains C's fresh runs (and B.bar's runs) into its run cache; ``--warm-up`` grades each kit once, untimed, before the
timed runs; ``--cold`` gives each timed run an empty run cache of its own, so that every run trains them.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import yaml

from autograder.projects import PROJECTS
from benchmarks.cpu_meter import Meter

KIT = Path(__file__).resolve().parent.parent


def measure(command: list[str], kit: Path = KIT, cold: bool = False) -> tuple[float, float, float, str]:
    """(wall seconds, peak resident MB of the whole process tree, CPU seconds of the whole tree, how CPU was
    counted); ``cold``: with an empty run cache of its own, so that the runs the grader trains itself are trained."""
    with Meter() as meter, tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, **({"AUTOGRADER_CACHE": cache} if cold else {})}
        return _measure(command, meter, kit, env) + (meter.how,)


def _measure(command: list[str], meter: Meter, kit: Path, env: dict) -> tuple[float, float, float]:
    started = time.perf_counter()
    proc = psutil.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=meter.enter,
                        cwd=kit, env=env)  # python -m autograder imports the package of the working directory first
    peak = 0
    while proc.poll() is None:
        try:
            tree = [proc] + proc.children(recursive=True)
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.02)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {proc.returncode}")
    # CPU seconds are the figure a machine busy with other work inflates least
    return time.perf_counter() - started, peak / 2**20, meter.seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seeds", default="grading", choices=["public", "grading"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--projects", default=",".join(PROJECTS), help="comma-separated project ids (default: all)")
    parser.add_argument("--isolation", choices=["auto", "bubblewrap", "uid"],
                        help="grade with this limits.isolation (a copy of course.yml), e.g. to price bubblewrap")
    other = parser.add_mutually_exclusive_group()
    other.add_argument("--vs", help="another checkout of the kit to grade in turn with this one (before/after)")
    other.add_argument("--floor", action="store_true", help="grade in turn an export of HEAD that audits nothing")
    parser.add_argument("--warm-up", action="store_true", help="grade each kit once, untimed, first (run caches)")
    parser.add_argument("--cold", action="store_true", help="each timed run with an empty run cache of its own")
    args = parser.parse_args()
    if args.floor:
        args.vs = str(floor_export())
    kits = [KIT] + ([Path(args.vs).resolve()] if args.vs else [])
    commands = {kit: command_for(kit, args) for kit in kits}
    figures = {kit: {"wall": [], "peak": [], "cpu": []} for kit in kits}
    if args.warm_up:
        for kit in kits:
            subprocess.run(commands[kit], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=kit)
    for run in range(args.runs):
        for kit in kits:  # interleaved, so that both see the same load
            wall, peak, cpu, how = measure(commands[kit], kit, args.cold)
            for name, value in zip(("wall", "peak", "cpu"), (wall, peak, cpu)):
                figures[kit][name].append(value)
            print(f"run {run + 1}{' of ' + str(kit) if args.vs else ''}: {wall:6.2f} s wall, {cpu:6.2f} s CPU ({how}), "
                  f"peak {peak:6.1f} MB", flush=True)
    for kit in kits:
        walls, peaks, cpus = (figures[kit][name] for name in ("wall", "peak", "cpu"))
        which = f" with {kit}" if args.vs else ""
        print(f"grade {args.projects} (reference, {args.seeds} seeds, --jobs {args.jobs}){which}, {args.runs} runs: "
              f"median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}); "
              f"CPU median {statistics.median(cpus):.1f} s (min {min(cpus):.1f}, max {max(cpus):.1f}); "
              f"peak memory median {statistics.median(peaks):.0f} MB (max {max(peaks):.0f} MB)")
    if args.vs:
        for name in ("wall", "cpu"):
            ratios = [a / b for a, b in zip(figures[KIT][name], figures[kits[1]][name])]
            print(f"{name} ratio this kit / {kits[1]}: median {statistics.median(ratios):.2f} "
                  f"(min {min(ratios):.2f}, max {max(ratios):.2f}) over {len(ratios)} pairs")
    if args.floor:
        shares = [(a - b) / b for a, b in zip(figures[KIT]["cpu"], figures[kits[1]]["cpu"])]
        print(f"the grader's own CPU (this kit's less the floor's) as a share of the floor: median "
              f"{statistics.median(shares):.0%} (min {min(shares):.0%}, max {max(shares):.0%}) "
              f"over {len(shares)} pairs")


NO_AUDIT = """

def audit(*args, **kwargs) -> list:  # the floor (benchmarks/grade.py --floor): no update is replayed
    return []
"""


def floor_export() -> Path:
    """An export of HEAD whose ``replay.audit`` returns at once (defined again at the end of its module, so every
    importer of the name takes this one)."""
    where = Path(tempfile.mkdtemp()) / "floor"
    where.mkdir()
    archive = subprocess.run(["git", "-C", str(KIT), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    module = where / "autograder" / "projects" / "_shared" / "replay.py"
    module.write_text(module.read_text() + NO_AUDIT)
    return where


def command_for(kit: Path, args) -> list[str]:
    command = [sys.executable, "-m", "autograder", "grade", str(kit / "solutions"), "--projects", args.projects,
               "--seeds", args.seeds, "--jobs", str(args.jobs)]
    if args.isolation:
        course = yaml.safe_load((kit / "course.yml").read_text())
        course["limits"]["isolation"] = args.isolation
        copy = Path(tempfile.mkdtemp()) / "course.yml"
        copy.write_text(yaml.safe_dump(course))
        command += ["--course", str(copy)]
    return command

if __name__ == "__main__":
    main()
