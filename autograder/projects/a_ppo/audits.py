"""A.bar's audits, started as soon as a seed's child hands its run back, while the other children still train.

The grader calls ``Bar450.on_shard`` when one seed's child ends; it replays that run in a separate process that runs
no student code (``python -m autograder.projects.a_ppo.audits``, the run on stdin, the outcome on stdout) and keeps
the outcome in this process, keyed by a digest of the run, the seed and the bar. ``judge`` takes a kept outcome or,
when there is none (the process failed, or judge is called alone, as in tests), replays the run itself: either way
the same function (``training.replay``) decides, so the early audit changes when the work is done, never the grade.
The child cannot reach the kept outcomes: they live in the grader's memory, keyed by what the child sent.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading

from autograder import paths

_kept: dict[str, tuple[list, str | None]] = {}  # digest -> (episodes, failure or None)
_lock = threading.Lock()


def digest(run_: dict, seed: int, bar: dict) -> str:
    """SHA-256 of the run as sent, its seed and the bar: one kept outcome per exact input."""
    return hashlib.sha256(json.dumps([run_, seed, bar], sort_keys=True).encode()).hexdigest()


def start(run_: dict, seed: int, bar: dict) -> None:
    """Audit one run in a fresh process (one BLAS thread) and keep its outcome; on any failure keep nothing, so
    that ``judge`` replays the run itself and reports what went wrong."""
    env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "autograder.projects.a_ppo.audits"], capture_output=True,
                          input=json.dumps({"run": run_, "seed": seed, "bar": bar}), text=True, env=env)
    if done.returncode == 0:
        outcome = json.loads(done.stdout)
        with _lock:
            _kept[digest(run_, seed, bar)] = ([tuple(e) for e in outcome["episodes"]], outcome["failure"])


def taken(run_: dict, seed: int, bar: dict) -> tuple[list, str | None] | None:
    """The kept outcome of this exact run, removed from the keep, or None."""
    with _lock:
        return _kept.pop(digest(run_, seed, bar), None)


def main() -> None:
    from autograder.projects.a_ppo.training import Bar450, replay
    request = json.loads(sys.stdin.read())
    episodes, failure = replay(request["run"], request["seed"], Bar450.Bar.model_validate(request["bar"]))
    json.dump({"episodes": episodes, "failure": failure}, sys.stdout)


if __name__ == "__main__":
    main()
