"""Fresh runs for grading, made in the grader's own processes, once per course and machine.

A seed's runs are trained in a separate process (no student code in it). Their logs depend only on the seed, the
course secret and the code that trains them, so they are kept in the grader's run cache (``autograder.run_cache``).
The truth of each run never leaves the grader and is never stored: it is recomputed from the seed and the course
secret by ``run_plan.fresh_plan``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from autograder import run_cache
from autograder.projects.c_diagnosis import run_plan

KIND = "c-fresh-runs"  # the run cache's folder of these runs


def fresh_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s runs in plan order (keys ``run_<i>/<field>``), trained once per course and
    machine (``autograder.run_cache``); a bundle that does not load is trained again."""
    depends_on = f"{run_cache.code_digest(Path(__file__).parent)}/{seed}/{secret or ''}"
    return run_cache.kept(KIND, depends_on, __name__, [str(seed)], secret, _loads)


def kept_beside(seed: int, secret: str | None, made_by: str, build: Callable[[list, list[dict]], list[dict]],
                count: int) -> Path:
    """A bundle of ``count`` logs made from ``seed``'s fresh runs by ``build`` (given the runs' plan and their logs),
    kept beside them in the run cache under ``made_by`` (a name holding a digest of the code that makes it): its name
    follows theirs, so it is made again whenever they are trained again, and a damaged one is made again."""
    source = fresh_logs(seed, secret)
    path = source.with_name(source.name.replace("runs_", f"{made_by}_", 1))
    with _lock:
        if path.exists() and not _loads(path, count):
            path.unlink(missing_ok=True)
        if not path.exists():
            logs = build(run_plan.fresh_plan(seed, secret), unbundle(source))
            partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
            np.savez_compressed(partial, **bundle(logs))
            partial.chmod(0o600)
            partial.replace(path)
    return path


_lock = threading.Lock()


def _loads(path: Path, count: int | None = None) -> bool:
    """Whether ``path`` unbundles (into ``count`` logs, where given)."""
    try:
        logs = unbundle(path)
    except Exception:  # noqa: BLE001 - a damaged file of any kind is made again
        return False
    return count is None or len(logs) == count


def bundle(logs: list[dict]) -> dict:
    return {f"run_{i}/{key}": value for i, log in enumerate(logs) for key, value in log.items()}


def unbundle(path) -> list[dict]:
    flat = run_plan.load(path)
    out: dict[int, dict] = {}
    for key, value in flat.items():
        run, field = key.split("/", 1)
        out.setdefault(int(run.split("_")[1]), {})[field] = value
    return [out[i] for i in sorted(out)]


def main(seed: int, out: str, secret: str) -> None:
    logs = [run_plan.generate(run) for run in run_plan.fresh_plan(seed, secret or None)]
    run_cache.written(out, bundle(logs))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.stdin.read())
