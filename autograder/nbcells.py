"""The autograded section of each project notebook, written from course.yml so its points can never disagree.

One locked nbgrader test cell per check, ending with the one call that runs the check and, being the last
expression, sets the cell's score. The seeds it runs with are chosen just before: the public ones in the cell a
student sees, the grading ones in the hidden block that nbgrader removes on release and puts back at ``nbgrader
autograde`` time. So autograding runs each check once, on the grading seeds, and not the public run as well.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.config import Course
from autograder.projects import PROJECTS

TAG = "autograder-check"


def _nbgrader(grade_id: str, points: float) -> dict:
    return {"grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": points,
            "schema_version": 3, "task": False}


def check_cells(project_id: str, course: Course) -> list:
    project = PROJECTS[project_id]
    header = nbformat.v4.new_markdown_cell(
        "## Autograded checks\n\n"
        "Each cell below runs one of the autograder's checks on your module, exactly as `autograder check "
        f"{project_id}` does, and ends with the points it earned. Final grading runs the same checks with seeds you do "
        "not see. These cells are generated from the course file: do not edit or delete them.",
        id=f"checks-{project_id}", metadata={"tags": [TAG]})  # no nbgrader cell: its add-missing-cells needs none
    cells = [header]
    for check_id, config in course.projects[project_id].checks.items():
        name = project.checks[check_id].name
        source = (f"# {check_id} ({config.points:g} points): {name}\n"
                  "from autograder.notebook import grade_cell\n"
                  'check_seeds = "public"\n'
                  "### BEGIN HIDDEN TESTS\n"
                  'check_seeds = "grading"\n'
                  "### END HIDDEN TESTS\n"
                  f'grade_cell("{check_id}", seeds=check_seeds)')
        cells.append(nbformat.v4.new_code_cell(
            source, id=f"check-{check_id.replace('.', '-')}",
            metadata={"tags": [TAG], "nbgrader": _nbgrader(f"check_{check_id.replace('.', '_')}", config.points)}))
    return cells


def sync_check_cells(notebook_path: Path, project_id: str, course: Course) -> bool:
    """Replace the notebook's check cells with fresh ones at its end; write it only if that changed it."""
    notebook = nbformat.read(notebook_path, as_version=4)
    kept = [c for c in notebook.cells if TAG not in c.metadata.get("tags", [])]
    fresh = kept + check_cells(project_id, course)
    if [(c.cell_type, c.source, c.metadata) for c in fresh] == [(c.cell_type, c.source, c.metadata)
                                                                for c in notebook.cells]:
        return False
    notebook.cells = fresh
    nbformat.write(notebook, notebook_path)
    return True


def project_for_folder(folder: str) -> str | None:
    return next((pid for pid, project in PROJECTS.items() if project.folder == folder), None)
