"""Grading a generated mutant (tests/support/mutations.py) whole and cheaply: a project's checks split into the quick
ones and the costly ones, and a mutant graded from a copy of the reference's folder with its one module changed. A
mutant that keeps full marks on every check of its project is a survivor (benchmarks/mutant_survivors.py)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from autograder import paths
from autograder.grading import grade
from autograder.projects import PROJECTS


def split_checks(project: str, course) -> tuple[list[str], list[str]]:
    """The course's checks of ``project`` in two lists: the quick ones (one child, a single piece's cost, building on
    no costly check: A's pieces and update, B's defaults, switches and summary, C's diagnostics and labels, D's pieces,
    step and prices) and the costly rest (training runs, sweeps, tables)."""
    checks = PROJECTS[project].checks
    graded = [cid for cid in checks if cid in course.projects[project].checks]
    costly = {cid for cid in graded if checks[cid].per_seed or checks[cid].cost > 1}
    costly |= {cid for cid in graded if set(checks[cid].builds_on) & costly}
    return [cid for cid in graded if cid not in costly], [cid for cid in graded if cid in costly]


def graded_rows(mutant, course, seed_set: str, checks: list[str]) -> dict[str, dict]:
    """The mutant's rows of ``checks`` (id: row), graded one child at a time from a copy of the reference's folder
    (B's with the reference's results.json and runs.npz)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / mutant.folder
        shutil.copytree(paths.SOLUTIONS / mutant.folder, folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.ipynb", "*.png"))
        (folder / mutant.module).write_text(mutant.source, encoding="utf-8")
        report = grade(tmp, course, seed_set=seed_set, projects=[mutant.project], checks=checks, jobs=1)
        return {row["id"]: row for project in report.report.to_json()["projects"].values()
                for row in project["checks"]}


def lost(rows: dict[str, dict]) -> list[str]:
    """The checks of ``rows`` that did not give full marks."""
    return [cid for cid, row in rows.items() if not row["passed"] or row["score"] < row["max_score"]]
