"""The bars' audits, started as soon as a seed's child hands its runs back, while the other children still train.

The grader calls a bar's ``on_shard`` when one seed's child ends; it replays that child's runs in a separate process
that runs no student code (``python -m autograder.projects._shared.audits``, the runs on stdin, the outcomes on
stdout) and keeps the outcomes in this process, keyed by a digest of the run, the seed, the bar and the replay. The
judge takes a kept outcome or, when there is none (the process failed, or the judge is called alone, as in tests),
replays the run itself: either way the same function decides (the project's replay, named ``"module:function"``
and called with the plain bar), so the early audit changes
when the work is done, never the grade. The child cannot reach the kept outcomes: they live in the grader's memory,
keyed by what the child sent.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from importlib import import_module

from autograder import paths

_kept: dict[str, tuple[list, str | None]] = {}  # digest -> (episodes, failure or None)
_lock = threading.Lock()


def digest(run_: dict, seed: int, bar: dict, replay: str) -> str:
    """SHA-256 of the run as sent, its seed, the bar and the replay: one kept outcome per exact input."""
    return hashlib.sha256(json.dumps([run_, seed, bar, replay], sort_keys=True).encode()).hexdigest()


def start(run_: dict, seed: int, bar: dict, replay: str) -> None:
    """Audit one run now (see ``start_all``)."""
    start_all([(run_, seed, bar)], replay)


def start_all(runs: list[tuple[dict, int, dict]], replay: str) -> None:
    """Audit (run, seed, bar) triples of one project, one after another, in one fresh process (one BLAS thread) and
    keep their outcomes; on any failure keep nothing, so that the judge replays the runs itself and reports what went
    wrong."""
    env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    request = {"replay": replay, "runs": [{"run": r, "seed": s, "bar": b} for r, s, b in runs]}
    done = subprocess.run([sys.executable, "-m", "autograder.projects._shared.audits"], capture_output=True,
                          input=json.dumps(request), text=True, env=env)
    if done.returncode == 0:
        outcomes = json.loads(done.stdout)
        with _lock:
            for (run_, seed, bar), outcome in zip(runs, outcomes):
                _kept[digest(run_, seed, bar, replay)] = ([tuple(e) for e in outcome["episodes"]],
                                                           outcome["failure"])


def taken(run_: dict, seed: int, bar: dict, replay: str) -> tuple[list, str | None] | None:
    """The kept outcome of this exact run, removed from the keep, or None."""
    with _lock:
        return _kept.pop(digest(run_, seed, bar, replay), None)


def replayer(name: str):
    """The replay named ``"module:function"``: ``function(run, seed, bar as plain data)`` -> (episodes, failure)."""
    module, function = name.split(":")
    return getattr(import_module(module), function)


def main() -> None:
    request = json.loads(sys.stdin.read())
    replay = replayer(request["replay"])
    outcomes = []
    for item in request["runs"]:
        episodes, failure = replay(item["run"], item["seed"], item["bar"])
        outcomes.append({"episodes": episodes, "failure": failure})
    json.dump(outcomes, sys.stdout)


if __name__ == "__main__":
    main()
