"""Fresh runs for grading, made in the grader's own processes and shared by every submission graded in one process.

A seed's runs are trained in a separate process (no student code in it), so two seeds train on two cores; the logs are
kept in a temporary folder for the life of the grader, because every submission graded with the same seeds gets the
same runs. The truth of each run never leaves the grader: it is recomputed from the seed and the course secret by
``runs.fresh_plan``.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from autograder import paths
from autograder.projects.c_diagnosis import runs

_lock = threading.Lock()
_folder: Path | None = None
_made: dict[str, threading.Lock] = {}
_SALT = os.urandom(32)


def _cache() -> Path:
    global _folder
    with _lock:
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="autograder-c-runs-"))  # the grader's alone: a check's child
            # gets a copy of its seed's bundle under a neutral name (sandbox.runner), never this folder
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def fresh_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s runs in plan order (keys ``run_<i>/<field>``), trained once per grader process.

    The secret reaches the training process through a pipe, never its command line or environment.
    """
    # keyed with a salt of this process: a file name says nothing about the seed or the secret, even to someone who
    # could list the folder and guess them
    tag = hmac.new(_SALT, f"{seed}/{secret or ''}".encode(), hashlib.sha256).hexdigest()[:16]
    path = _cache() / f"runs_{tag}.npz"
    with _lock:
        made = _made.setdefault(tag, threading.Lock())
    with made:
        if not path.exists():
            env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            done = subprocess.run([sys.executable, "-m", "autograder.projects.c_diagnosis.fresh", str(seed), str(path)],
                                  input=secret or "", capture_output=True, text=True, env=env)
            if done.returncode != 0 or not path.exists():
                raise RuntimeError(f"training the fresh runs of seed {seed} failed:\n{done.stderr[-2000:]}")
    return path


def bundle(logs: list[dict]) -> dict:
    return {f"run_{i}/{key}": value for i, log in enumerate(logs) for key, value in log.items()}


def unbundle(path) -> list[dict]:
    flat = runs.load(path)
    out: dict[int, dict] = {}
    for key, value in flat.items():
        run, field = key.split("/", 1)
        out.setdefault(int(run.split("_")[1]), {})[field] = value
    return [out[i] for i in sorted(out)]


def main(seed: int, out: str, secret: str) -> None:
    logs = [runs.generate(run) for run in runs.fresh_plan(seed, secret or None)]
    partial = Path(out + ".partial.npz")
    np.savez_compressed(partial, **bundle(logs))
    partial.replace(out)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.stdin.read())
