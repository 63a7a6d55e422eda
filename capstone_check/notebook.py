"""The checker inside a notebook: a check cell calls ``grade_cell`` on the project folder beside the notebook,
prints the verdict on the public seeds and ends with the points earned, as the full kit's check cells do."""

from __future__ import annotations

from pathlib import Path

from capstone_check.runner import expected, run_project, say_limits_once


def grade_cell(check_id: str, seeds: str = "public", folder: str | Path = ".") -> float:
    project = check_id.split(".", 1)[0]
    data = expected(project)
    if seeds != "public" or data["checks"].get(check_id, {}).get("kind", "final_only") == "final_only":
        print(f"{check_id} runs at final grading only: 0 points here")
        return 0.0
    from capstone_check.cli import find_folder

    say_limits_once(data.get("memory_mb"))
    where = find_folder(data["folder"], Path(folder).resolve()) or Path(folder).resolve()
    row = next(run_project(project, where, [check_id]))
    said = "passed" if row.passed else ("partly passed" if row.score > 0 else "failed")
    print(f"{check_id} {said} on the public seeds: {row.score:g} / {row.points:g} points")
    print(f"  {row.message}")
    return row.score
