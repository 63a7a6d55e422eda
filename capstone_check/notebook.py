"""The checker inside a notebook: a check cell calls ``grade_cell`` on the project folder beside the notebook,
prints the verdict on the public seeds and ends with the points earned.

Every released notebook's check cells import this module, so a student's kernel needs only the students' bundle.
The full kit carries this package too, without the expected values (they are recorded when the bundle is built): there
a check cell runs the kit's own check instead, so the staff run the same notebooks with the kit alone.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

from capstone_check.verdict import names
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
    from capstone_check.cli import find_folder, row_message, status

    say_limits_once(data.get("memory_mb"))
    where = find_folder(data["folder"], Path(folder).resolve()) or Path(folder).resolve()
    # the rows it builds on run too (single pieces, seconds): its status and message then say what capstone-check says
    rows = {row.check: row for row in run_project(project, where, [check_id, *spec.get("builds_on", []),
                                                                   *spec.get("led_by", [])])}
    row, mark = rows[check_id], status(rows[check_id], spec, rows)
    if mark.startswith("at risk"):
        said = f"passed here but is at risk ({mark.removeprefix('at risk: ')} at final grading)"
    else:
        said = "passed" if row.passed else ("partly passed" if row.score > 0 else "failed")
    print(f"{check_id} {said} on the public seeds: {row.score:g} / {row.points:g} points")
    print(f"  {row_message(row, spec, rows)}")
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
