"""The notebooks' autograded cells agree with course.yml, and a check cell reports like the command line does."""

import nbformat
import pytest

from autograder import paths
from autograder.nbcells import TAG, check_cells
from autograder.notebook import grade_cell
from autograder.projects import PROJECTS


@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_each_notebook_ends_with_one_cell_per_check_worth_its_course_points(project, course):
    folder = PROJECTS[project].folder
    notebook = nbformat.read(paths.SOLUTIONS / folder / f"{folder}.ipynb", as_version=4)
    tagged = [c for c in notebook.cells if TAG in c.metadata.get("tags", [])]
    assert notebook.cells[-len(tagged):] == tagged, "the check cells belong at the end of the notebook"
    graded = [c for c in tagged if c.metadata.get("nbgrader", {}).get("grade")]
    assert [c.metadata.nbgrader.points for c in graded] == [c.points for c in course.projects[project].checks.values()]
    assert [c.source for c in tagged] == [c.source for c in check_cells(project, course)], \
        "run `autograder release` to refresh the check cells"


def test_a_check_cell_prints_its_verdict_to_stdout_and_returns_its_points(capsys, monkeypatch):
    monkeypatch.chdir(paths.SOLUTIONS / "D_grpo")
    assert grade_cell("D.kl_penalty") == 1.0
    out = capsys.readouterr()
    assert "D.kl_penalty passed on the public seeds: 1 / 1 points" in out.out and out.err == ""


def test_a_failing_check_cell_returns_zero_without_raising(capsys, monkeypatch):
    monkeypatch.chdir(paths.ASSIGNMENTS / "D_grpo")
    assert grade_cell("D.kl_penalty") == 0.0
    assert "is not implemented yet" in capsys.readouterr().out


def test_an_unknown_check_is_named():
    with pytest.raises(ValueError, match="unknown check 'D.nope'"):
        grade_cell("D.nope")
