"""The checker inside a notebook: a check cell calls ``grade_cell`` on the project folder beside the notebook,
prints the verdict on the public seeds and ends with the points earned.

Every released notebook's check cells import this module, so a student's kernel needs only the students' bundle.
The full kit carries this package too, without the expected values (they are recorded when the bundle is built): there
a check cell runs the kit's own check instead, so the staff run the same notebooks with the kit alone.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

from capstone_check.prediction import names
from capstone_check.runner import EXPECTED, CheckerError, expected, run_project, say_limits_once


def grade_cell(check_id: str, seeds: str = "public", folder: str | Path = ".") -> float:
    """Run the public check ``check_id`` on the project folder found from ``folder``; print its verdict and return
    its points."""
    if not EXPECTED.is_dir():
        return kits_check(check_id, folder)
    project = check_id.split(".", 1)[0]
    data = expected(project)
    spec = data["checks"].get(check_id, {})
    if seeds != "public" or spec.get("kind", "final_only") == "final_only":
        adds = f" ({spec['adds']} {names(spec['builds_on'])})" if spec.get("builds_on") else ""
        print(f"{check_id} runs at final grading only{adds}: 0 points here")
        return 0.0
    from capstone_check.cli import find_folder

    say_limits_once(data.get("memory_mb"))
    where = find_folder(data["folder"], Path(folder).resolve()) or Path(folder).resolve()
    row = next(run_project(project, where, [check_id]))
    said = "passed" if row.passed else ("partly passed" if row.score > 0 else "failed")
    print(f"{check_id} {said} on the public seeds: {row.score:g} / {row.points:g} points")
    print(f"  {row.message}")
    return row.score


KIT_ENTRY = ("capstone_check.kit", "grade_cell")  # the full kit's own check cell, as its package metadata names it


def kits_check(check_id: str, folder: str | Path) -> float:
    """The check cell in the full kit, whose copy of this package holds no expected values: the kit's own check of
    ``check_id`` on the public seeds, found by its entry point (``KIT_ENTRY``), never imported by name."""
    group, name = KIT_ENTRY
    try:
        kits_grade_cell = next(iter(entry_points(group=group, name=name))).load()
    except (StopIteration, ImportError):  # no kit installed, or one whose package is gone
        raise CheckerError("this checker holds no expected values and no kit is installed beside it: install the "
                           "students' kit your course hands out") from None
    return kits_grade_cell(check_id, folder=folder)
