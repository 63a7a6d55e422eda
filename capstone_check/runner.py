"""Run a project's checks, each in a child process of its own with a wall-time limit (``starts``: forked where the
platform can, a fresh interpreter elsewhere), and hand back each row as it ends.

The checks of single pieces start first (they take a second each), the training checks after them, so the first
verdict comes in seconds. Students run this on their own machines (Linux, macOS, Windows, Colab, a JupyterHub): no
sandbox is needed there, and none is assumed. Where ``resource`` exists the child's memory is limited too.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from capstone_check import starts

try:
    import resource
except ImportError:  # Windows
    resource = None

EXPECTED = Path(__file__).parent / "expected"
FORK = starts.can_fork()  # fork each child from a server that imported the checks once (False: fresh interpreters)
PIECE_COST = 1.0  # the cost of a check of single pieces (the course's unit)
SLOWER = 3  # a student's laptop may be slower than the grading machine: wall-time limits are the course's times this
_said = threading.Event()


class CheckerError(Exception):
    """The checker cannot run as asked (no expected values, an unknown project); the message says why."""


@dataclass
class Row:
    """A check's line: its points, score and message, and the seconds from the start of the run to its end."""

    check: str
    name: str
    points: float
    score: float
    passed: bool
    message: str
    seconds: float
    final_only: bool = False  # not run here: it needs the reference at run time
    basis: bool | dict | None = None  # whether what training uses of the piece passes, where its check tells
    foreseen: float | None = None  # a row left to final grading: the share its public evidence predicts
    evidence: str = ""  # and what that evidence says
    named: list = field(default_factory=list)  # the sentences of the known mistakes the row (or its evidence) named
    remade: dict | None = None  # a training bar's: where the pieces first fail to remake the reference's own runs
    # ({} where they remake them; None where this kit cannot tell)
    by_kind: dict | None = None  # per kind of case, [how many right, how many] (``Verdict.by_kind``)
    spread: list | None = None  # the least and most share final grading's seeds may give (``Verdict.spread``)
    aside: str = ""  # what is said beside the row's message (``Verdict.aside``)
    raised: bool = False  # a row left to final grading whose probe ended in the student's error: final grading's same
    # call ends so too


FINAL_ONLY = "left to final grading: it needs what this kit does not hold"


def expected(project: str) -> dict:
    path = EXPECTED / f"{project}.json"
    if not path.is_file():
        have = ", ".join(sorted(p.stem for p in EXPECTED.glob("*.json"))) or "none"
        raise CheckerError(f"no expected values for project {project} in this checker (it has: {have}); it is built "
                           "by the course's `autograder release`")
    return json.loads(path.read_text())


def projects() -> list[str]:
    return sorted(p.stem for p in EXPECTED.glob("*.json"))


def limits_note(memory_mb: int | None) -> str:
    """What this machine's checker enforces, said once."""
    if resource is not None and hasattr(os, "fork") and memory_mb:
        return ""
    return ("note: on this machine each check runs in a plain child process with a wall-time limit only; memory and "
            "CPU limits are not enforced here (final grading enforces them)")


def _child(spec_file: Path, data: dict, check: str, folder: Path, seed: int | None = None) -> dict:
    """One child's result: the check's verdict, or with ``seed`` that seed's row of a per-seed check."""
    spec = data["checks"][check]
    seconds = spec["wall_seconds"] * SLOWER / (len(spec["seeds"]) if seed is not None else 1)
    with tempfile.TemporaryDirectory(prefix="capstone-check-") as tmp:
        request = {"expected": str(spec_file), "check": check, "folder": str(folder), "modules": data["modules"],
                   "result": str(Path(tmp, "result.json")), "seed": seed, "probe": spec["kind"] == "final_only"}
        Path(tmp, "request.json").write_text(json.dumps(request))
        child = starts.start(Path(tmp, "request.json"), Path(tmp, "output"), data.get("memory_mb"),
                             _check_modules(data), FORK)
        timed_out = not child.wait(seconds)
        returncode = child.stop()
        return _result(Path(tmp, "result.json"), returncode, timed_out, seconds)


def _check_modules(data: dict) -> list[str]:
    """The modules that run the project's checks (and the probes of rows left to final grading), which a forked child
    finds imported."""
    runners = [part.get("runner") for spec in data["checks"].values() for part in (spec, spec.get("probe", {}))]
    return sorted({name.split(":")[0] for name in runners if name})


def _row(check: str, spec: dict, result: dict, seconds: float) -> Row:
    fraction = min(max(float(result["fraction"]), 0.0), 1.0)
    if spec["kind"] == "final_only":  # its probe's result: listed as left to final grading, predicted from it
        return Row(check, spec["name"], spec["points"], 0.0, False, FINAL_ONLY, seconds, final_only=True,
                   foreseen=fraction, evidence=result["message"], named=result.get("named", []),
                   raised=result.get("status") == "student_error",
                   by_kind=result.get("by_kind"), remade=result.get("remade"), spread=result.get("spread"))
    if spec["credit"] == "all_or_nothing" and fraction < 1.0:
        fraction = 0.0
    return Row(check, spec["name"], spec["points"], round(spec["points"] * fraction, 2), fraction >= 1.0,
               result["message"] + spec.get("note", ""), seconds, basis=result.get("basis"),
               remade=result.get("remade"), by_kind=result.get("by_kind"), spread=result.get("spread"),
               named=result.get("named", []), aside=result.get("aside", ""))


def _decided(spec: dict, results: list[dict]) -> dict:
    """A per-seed check's result from its seeds' rows (in seed order), or the first seed's failure."""
    from capstone_check.child import per_seed, result_of

    failed = next((r for r in results if r.get("status") != "ok" or "row" not in r), None)
    if failed is not None:
        return failed
    return result_of(per_seed(spec, "verdict")(spec, [r["row"] for r in results]))


def _tasks(data: dict, wanted: list[str]) -> list[tuple[str, int | None, float]]:
    """(check, seed or None, cost): a per-seed check is one task per seed, so two cores share its seeds. The checks
    of single pieces come first (a first verdict in a second), then the costliest first: a long check started last
    would run alone on one core while the other idles."""
    tasks = []
    for check in wanted:
        spec = data["checks"][check]
        if spec.get("per_seed") and len(spec.get("seeds", [])) > 1:
            tasks += [(check, seed, spec["cost"] / len(spec["seeds"])) for seed in spec["seeds"]]
        else:
            tasks.append((check, None, spec["cost"]))
    return sorted(tasks, key=lambda task: (task[2] > PIECE_COST, -task[2]))


def _result(path: Path, returncode: int, timed_out: bool, seconds: float) -> dict:
    if timed_out:
        return {"fraction": 0.0, "message": f"did not finish within {seconds:g} s; look for an endless loop or a "
                                            "step far slower than needed"}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"fraction": 0.0, "message": f"the process running your code ended (exit status {returncode}) "
                                            "before the check finished (does your code call sys.exit or os._exit?)"}


def _runs_here(spec: dict) -> bool:
    """A check this kit runs, or the probe of a row left to final grading."""
    return spec["kind"] != "final_only" or "probe" in spec


def run_project(project: str, folder: Path, checks: list[str] | None = None, jobs: int | None = None):
    """Yield each check's ``Row`` as it finishes, the checks of single pieces first."""
    spec_file = EXPECTED / f"{project}.json"
    data = expected(project)
    wanted = [c for c in data["checks"] if checks is None or c in checks]
    for check in wanted:
        spec = data["checks"][check]
        if spec["kind"] == "final_only" and "probe" not in spec:
            yield Row(check, spec["name"], spec["points"], 0.0, False, FINAL_ONLY, 0.0, final_only=True)
    tasks = _tasks(data, [c for c in wanted if _runs_here(data["checks"][c])])
    shards: dict[str, dict] = {check: {} for check, _, _ in tasks}
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs or max(1, min(2, os.cpu_count() or 1))) as pool:
        futures = {pool.submit(_child, spec_file, data, check, folder, seed): (check, seed)
                   for check, seed, _ in tasks}
        for future in as_completed(futures):
            check, seed = futures[future]
            spec = data["checks"][check]
            if seed is None:
                yield _row(check, spec, future.result(), time.perf_counter() - started)
                continue
            shards[check][seed] = future.result()
            if len(shards[check]) == len(spec["seeds"]):
                result = _decided(spec, [shards[check][s] for s in spec["seeds"]])
                yield _row(check, spec, result, time.perf_counter() - started)


def say_limits_once(memory_mb: int | None, write=print) -> None:
    note = limits_note(memory_mb)
    if note and not _said.is_set():
        _said.set()
        write(note)
