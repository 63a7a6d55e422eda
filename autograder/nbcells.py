"""The autograded section of each project notebook, written from course.yml so its points can never disagree.

One locked nbgrader test cell per check, ending with the one call that runs the check and, being the last
expression, sets the cell's score. A student running it gets the check on the public seeds, from the students'
checker (``capstone_check.notebook``), so a student's kernel needs only the students' bundle, never the kit with its
answers (in the kit, the same cell runs the kit's own check). At ``nbgrader
autograde`` time no kernel runs it: ``autograder.nbautograde.GradeChecks`` grades the project outside the notebook,
with the grading seeds, and writes each verdict and score into its cell. The hidden block (removed on release, put
back by nbgrader at autograde time) only matters where a kernel runs the graded cell anyway, a course whose
nbgrader_config.py lacks that preprocessor: there the cell scores nothing and says why, rather than scoring the
public seeds in a kernel the student's code controls.
"""

from __future__ import annotations

from pathlib import Path

from autograder.config import Course
from autograder.projects import PROJECTS

TAG = "autograder-check"


def points_text(points: float) -> str:
    """``1 point``, ``0.5 points``, ``3 points``."""
    return f"{points:g} point{'' if points == 1 else 's'}"


def grade_id_of(check_id: str) -> str:
    """The nbgrader grade id of a check's cell: ``check_D_k_sweep`` for ``D.k_sweep``."""
    return f"check_{check_id.replace('.', '_')}"


def _nbgrader(grade_id: str, points: float) -> dict:
    return {"grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": points,
            "schema_version": 3, "task": False}


def check_cells(project_id: str, course: Course) -> list:
    import nbformat  # the `nbgrader` extra: grading never needs it, so the kit imports it only here

    project = PROJECTS[project_id]
    header = nbformat.v4.new_markdown_cell(
        "## Autograded checks\n\n"
        "Each cell below runs one of the autograder's checks on your module, exactly as `capstone-check "
        f"{project_id}` does, and ends with the points it earned. Final grading runs the same checks outside your "
        "notebook, with seeds you do not see, and writes each verdict below its cell. These cells are generated from "
        "the course file: do not edit or delete them.",
        id=f"checks-{project_id}", metadata={"tags": [TAG]})  # no nbgrader cell: its add-missing-cells needs none
    cells = [header]
    for check_id, config in course.projects[project_id].checks.items():
        name = project.checks[check_id].name
        source = (f"# {check_id} ({points_text(config.points)}): {name}\n"
                  "from capstone_check.notebook import grade_cell\n"
                  "### BEGIN HIDDEN TESTS\n"
                  "from autograder.notebook import graded_outside_the_notebook as grade_cell\n"
                  "### END HIDDEN TESTS\n"
                  f'grade_cell("{check_id}")')
        cells.append(nbformat.v4.new_code_cell(
            source, id=f"check-{check_id.replace('.', '-')}",
            metadata={"tags": [TAG], "nbgrader": _nbgrader(grade_id_of(check_id), config.points)}))
    return cells


def sync_check_cells(notebook_path: Path, project_id: str, course: Course) -> bool:
    """Replace the notebook's check cells with fresh ones at its end; write it only if that changed it."""
    import nbformat

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
