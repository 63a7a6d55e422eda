"""Fresh runs for grading, made in the grader's own processes, once per course and machine.

A seed's runs are trained in a separate process (no student code in it). Their logs depend only on the seed, the
course secret and the code that trains them, so they are kept in the grader's run cache (``autograder.run_cache``).
The truth of each run never leaves the grader and is never stored: it is recomputed from the seed and the course
secret by ``run_plan.fresh_plan``.
"""

from __future__ import annotations

import sys
from pathlib import Path


from autograder import run_cache
from autograder.projects.c_diagnosis import run_plan

KIND = "c-fresh-runs"  # the run cache's folder of these runs


def fresh_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s runs in plan order (keys ``run_<i>/<field>``), trained once per course and
    machine (``autograder.run_cache``); a bundle that does not load is trained again."""
    depends_on = f"{run_cache.code_digest(Path(__file__).parent)}/{seed}/{secret or ''}"
    return run_cache.kept(KIND, depends_on, __name__, [str(seed)], secret, _loads)


def _loads(path: Path) -> bool:
    try:
        unbundle(path)
        return True
    except Exception:  # noqa: BLE001 - a damaged file of any kind is made again
        return False


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
