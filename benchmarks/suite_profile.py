"""Benchmark: where the test suite's time goes. Runs the suite as ``make test`` does (two pytest-xdist workers),
records each test's wall time on its worker, and samples the machine's CPU counters while it runs; then prints, per
module, its worker, when it started and ended and its wall time (longest first), the suite's CPU (every process it
started, sandboxed ones included, where a cgroup can count them: ``cpu_meter``) and how busy the machine's cores
were.

    .venv/bin/python -m benchmarks.suite_profile                 # the whole suite
    .venv/bin/python -m benchmarks.suite_profile -m "not slow"   # the fast lane; any pytest arguments pass through

When the cores are busy nearly all the time, the suite is bound by its CPU work: a module's wall time is then its
share of two busy cores, and only doing less work makes the suite quicker. Idle cores (a worker left alone with a long
module, a test waiting on a timeout) would show as a low busy share. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest

from benchmarks.cpu_meter import Meter

OUT = "SUITE_PROFILE_OUT"  # set by the benchmark for its workers: the folder each writes its tests' times into


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Loaded into each worker with ``-p benchmarks.suite_profile``: one line per test, setup to teardown."""
    started = time.time()
    yield
    if os.environ.get(OUT):
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(Path(os.environ[OUT]) / f"{worker}.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": item.nodeid, "worker": worker, "start": started, "end": time.time()}) + "\n")


def cpu_counters() -> tuple[int, int, int]:
    """(busy, steal, total) jiffies of every core since boot, from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle, steal = fields[3] + fields[4], fields[7] if len(fields) > 7 else 0
    return sum(fields) - idle - steal, steal, sum(fields)


def modules(tests: list[dict]) -> list[dict]:
    """Per module and worker: tests, start and end (seconds from the first test's start) and summed wall time."""
    first, rows = min(t["start"] for t in tests), defaultdict(lambda: {"tests": 0, "wall": 0.0})
    for t in tests:
        row = rows[t["test"].split("::")[0], t["worker"]]
        row["tests"] += 1
        row["wall"] += t["end"] - t["start"]
        row["start"] = min(row.get("start", t["start"] - first), t["start"] - first)
        row["end"] = max(row.get("end", 0.0), t["end"] - first)
    return sorted(({"module": m, "worker": w, **r} for (m, w), r in rows.items()), key=lambda r: -r["wall"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=20, help="modules to list, longest first")
    args, pytest_args = parser.parse_known_args(argv)
    with tempfile.TemporaryDirectory(prefix="suite-profile-") as folder:
        samples, stop = [cpu_counters()], threading.Event()

        def sample():
            while not stop.wait(5):
                samples.append(cpu_counters())

        sampler = threading.Thread(target=sample, daemon=True)
        with Meter() as meter:  # its cgroup is removed on the way out
            began = time.time()
            sampler.start()
            done = subprocess.Popen([sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "benchmarks.suite_profile",
                                     *pytest_args], env={**os.environ, OUT: folder}, preexec_fn=meter.enter).wait()
            wall, cpu, how = time.time() - began, meter.seconds(), meter.how
        stop.set()
        sampler.join()
        samples.append(cpu_counters())
        tests = [json.loads(line) for f in Path(folder).glob("*.jsonl") for line in f.read_text().splitlines()]
    busy, steal, total = (b - a for a, b in zip(samples[0], samples[-1]))
    print(f"pytest exited {done}; {len(tests)} tests in {wall:.0f} s wall; the suite's CPU {cpu:.0f} s ({how}),"
          f" {cpu / wall:.2f} cores on average; the machine's cores busy {100 * busy / total:.1f} % of the time, "
          f"stolen {100 * steal / total:.1f} %")
    for worker in sorted({t["worker"] for t in tests}):
        ends = [t["end"] for t in tests if t["worker"] == worker]
        print(f"{worker}: {len(ends)} tests, last ended {max(ends) - min(t['start'] for t in tests):.0f} s in")
    print(f"\n{'module':58s} {'worker':6s} {'tests':>5s} {'start':>6s} {'end':>6s} {'wall':>6s}")
    for row in modules(tests)[:args.top]:
        print(f"{row['module']:58s} {row['worker']:6s} {row['tests']:5d} {row['start']:6.0f} {row['end']:6.0f} "
              f"{row['wall']:6.0f}")
    return done


if __name__ == "__main__":
    sys.exit(main())
