"""Each check's score on the public seeds, from the grader and from the students' bundle, both run in this process
(the test compares the judges, not the sandbox: each side's collect calls the same student code on the same inputs).

The grader's side is what its child does (``collect`` per shard, in seed order, each shard's ``prepare`` first) then
what the grader does with the result (``grading.judged``); the bundle's is what its child does (``child.run``) then
what its runner does with the verdict.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.grading import _prepare, judged
from autograder.plan import planned
from autograder.projects import PROJECTS
from autograder.sandbox.child import plain
from autograder.sandbox.runner import ChildRun
from capstone_check.student import Student, StudentError, raised_by_student

COURSE = load_course(paths.COURSE_FILE, private=False)


def public_checks(pid: str) -> list[str]:
    return [cid for cid, cfg in COURSE.projects[pid].checks.items() if cfg.public]


def _outcome(item, folder: Path) -> ChildRun:
    """What the grader's children hand back for ``item``, joined over its shards as ``grading._merge`` joins them."""
    parts = []
    for shard in item.shards():
        ctx = _prepare(item.check, item.context_for(shard))
        try:
            student = Student(folder, PROJECTS[item.project].modules)
            parts.append(plain(item.check.collect(student, ctx)))
        except StudentError as exc:  # with what the check had collected, as the child hands it back
            return ChildRun("student_error", 0.0, plain(exc.partial), message=str(exc), kind=exc.kind)
        except Exception as exc:  # noqa: BLE001 - as the child says it: the student's when it came from their files
            if raised_by_student(exc, folder.resolve()) is None:
                raise
            return ChildRun("student_error", 0.0, message=str(exc))
    data = parts[0] if len(parts) == 1 else {key: [x for part in parts for x in part[key]] for key in parts[0]}
    return ChildRun("ok", 0.0, raw=json.dumps({"data": data}).encode())


def grader_rows(root: Path, pid: str, checks: list[str] | None = None) -> dict[str, tuple[float, str, float]]:
    """Per check, final grading's (score, message, seconds) on the public seeds."""
    folder, out = Path(root) / PROJECTS[pid].folder, {}
    for cid in checks or public_checks(pid):
        started = time.perf_counter()
        item = planned(COURSE, pid, cid, "public", folder)
        entry = judged(item, _outcome(item, folder), COURSE)
        out[cid] = (entry.score, entry.message, round(time.perf_counter() - started, 2))
    return out


def grader_scores(root: Path, pid: str, checks: list[str] | None = None, timed: bool = False) -> dict[str, float]:
    return {cid: (score, seconds) if timed else score
            for cid, (score, _, seconds) in grader_rows(root, pid, checks).items()}


def bundle_rows(bundle: Path, root: Path, pid: str,
                checks: list[str] | None = None) -> dict[str, tuple[float, str, float]]:
    """Per check, the bundle's (score, message, seconds), from the bundle's own checker package (imported from
    ``bundle``), the message as its row prints it."""
    from capstone_check.child import run

    expected = bundle / "capstone_check" / "expected" / f"{pid}.json"
    data, out = json.loads(expected.read_text()), {}
    folder = Path(root) / data["folder"]
    for cid in checks or list(data["checks"]):
        started = time.perf_counter()
        spec = data["checks"][cid]
        result = run({"expected": str(expected), "check": cid, "folder": str(folder), "modules": data["modules"]})
        fraction = min(max(result["fraction"], 0.0), 1.0)
        if spec["credit"] == "all_or_nothing" and fraction < 1.0:
            fraction = 0.0
        out[cid] = (round(spec["points"] * fraction, 2), result["message"] + spec.get("note", ""),
                    round(time.perf_counter() - started, 2))
    return out


def bundle_scores(bundle: Path, root: Path, pid: str, checks: list[str] | None = None,
                  timed: bool = False) -> dict[str, float]:
    """The bundle's scores, from the bundle's own checker package (imported from ``bundle``)."""
    return {cid: (score, seconds) if timed else score
            for cid, (score, _, seconds) in bundle_rows(bundle, root, pid, checks).items()}


# seconds to minutes each
TRAINING = {"A.bar", "C.fresh_runs", "C.diagnose_rules", "D.chapter_tables", "D.k_sweep", "D.beta_sweep"}


def digest(*folders: Path, extra: str = "") -> str:
    """SHA-256 of every file under ``folders`` (names and bytes) and ``extra``: what a cached score depends on."""
    import hashlib

    h = hashlib.sha256(extra.encode())
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def cached(cache, key: str, compute):
    """``compute()``, kept in pytest's cache under ``key`` (a digest of everything the value depends on)."""
    if cache is None:
        return compute()
    value = cache.get(f"student_kit/{key}", None)
    if value is None:
        value = compute()
        cache.set(f"student_kit/{key}", value)
    return value
