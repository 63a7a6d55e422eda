"""Benchmark: the CPU one sandboxed child spends starting, per project: the interpreter, what the child imports and
the reference's modules (the import probe, which runs no check).

    .venv/bin/python -m benchmarks.child_start [--runs 20] [--vs DIR]

Each child runs as the grader starts it (``python -m autograder.sandbox.child``, the scrubbed environment, the staged
runtime), without bubblewrap or a uid of its own, whose cost is the sandbox's and not the child's (sandbox_cost.py).
CPU is the children's user and system time (``getrusage``), per start. A floor is printed beside: the same
interpreter importing numpy alone. ``--vs DIR`` measures another checkout of the kit (an export of an earlier commit)
in turn with this one, run for run, so that both see the same load, and prints the ratio.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
CHUNK = 5  # starts of one kit in a row (each turn stages its runtime again)


def _cpu_of(argv: list[str], env: dict, cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def one_kit(runs: int) -> dict[str, list[float]]:
    """CPU seconds of each start, per project and for the numpy floor, for the kit first on the module search path."""
    from autograder import paths
    from autograder.projects import PROJECTS
    from autograder.sandbox import runner, runtime

    cpu = {"numpy alone": []} | {pid: [] for pid in PROJECTS}
    with runtime.staged() as runtime_dir, tempfile.TemporaryDirectory() as home:
        env = runner._child_env(home, runtime_dir)
        requests = {}
        for pid, project in PROJECTS.items():
            request = {"project": pid, "check": None, "folder": str(paths.SOLUTIONS / project.folder),
                       "package": PROJECTS.package(pid), "modules": list(project.modules),
                       "result": str(Path(home, f"{pid}.json"))}
            requests[pid] = Path(home, f"{pid}-request.json")
            requests[pid].write_text(json.dumps(request))
        for _ in range(runs):
            cpu["numpy alone"].append(_cpu_of([sys.executable, "-c", "import numpy"], env, home))
            for pid, request in requests.items():
                cpu[pid].append(_cpu_of([sys.executable, "-m", "autograder.sandbox.child", str(request)], env, home))
                if json.loads(Path(home, f"{pid}.json").read_text())["status"] != "ok":
                    raise SystemExit(f"{pid}: the import probe of the reference did not pass")
    return cpu


def measured(kit: Path, runs: int) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, __file__, "--one", "--runs", str(runs)], check=True, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(kit)})  # that kit's modules come first
    return json.loads(done.stdout)


def median(values: list[float]) -> float:
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--vs", type=Path, help="another checkout of the kit, measured in turn with this one")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # inner: the kit on PYTHONPATH
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_kit(args.runs)))
        return
    kits = {"this": KIT} | ({"vs": args.vs.resolve()} if args.vs else {})
    cpu = {name: {} for name in kits}
    for _ in range(0, args.runs, CHUNK):  # a few starts of each at a time, in turn, so that both see the same load
        for name, kit in kits.items():
            for key, values in measured(kit, min(CHUNK, args.runs)).items():
                cpu[name].setdefault(key, []).extend(values)
    load = os.getloadavg()[0]
    print(f"CPU per child start, median of {args.runs} (load average {load:.1f} at the end)")
    for key in cpu["this"]:
        line = f"  {key:12s} this {median(cpu['this'][key]):.3f} s"
        if args.vs:
            before = median(cpu["vs"][key])
            line += f"   vs {before:.3f} s   ratio {median(cpu['this'][key]) / before:.2f}"
        print(line)


if __name__ == "__main__":
    main()
