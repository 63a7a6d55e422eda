"""The notebooks' autograded cells agree with course.yml, and a check cell reports like the command line does."""

import json

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


def test_a_hidden_block_grades_in_another_process_and_the_kernel_never_reads_the_overlay(tmp_path, capsys,
                                                                                         monkeypatch):
    from autograder import config

    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [3210987654, 1234]}\nsecret: kernel-must-not-see-this\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(overlay))
    read = []
    monkeypatch.setattr(config, "_apply_overlay", lambda *a: read.append(a) or pytest.fail("read in the kernel"))
    assert grade_cell("D.kl_penalty", seeds="grading", folder=paths.SOLUTIONS / "D_grpo") == 1.0
    out = capsys.readouterr().out
    assert "D.kl_penalty passed on the grading seeds: 1 / 1 points" in out and not read
    assert "3210987654" not in out and "kernel-must-not-see-this" not in out and "points: " not in out


def test_feedback_outputs_lose_the_grading_seeds_and_the_secret(tmp_path, monkeypatch):
    from autograder.nbfeedback import StrikeSecrets

    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [3210987654, 1234]}\nsecret: kernel-must-not-see-this\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(overlay))
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(open(...).read())", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="seeds 3210987654 and kernel-must-not-see-this"),
        nbformat.v4.new_output("error", ename="E", evalue="seed 1234", traceback=["at 1234"]),
        nbformat.v4.new_output("execute_result", data={"text/plain": "[3210987654]"}, execution_count=1)])])
    cleaned, _ = StrikeSecrets().preprocess(notebook, {})
    text = json.dumps(cleaned)
    assert "3210987654" not in text and "1234" not in text and "kernel-must-not-see-this" not in text


def test_a_check_cell_runs_its_check_once_public_when_released_grading_when_autograded(course, monkeypatch):
    """The hidden block only chooses the seeds: autograding (the block put back) runs the check once, on the grading
    seeds, instead of a public run followed by a grading one."""
    from nbgrader.preprocessors import ClearHiddenTests

    from autograder import notebook

    calls = []
    monkeypatch.setattr(notebook, "grade_cell", lambda check_id, seeds="public": calls.append((check_id, seeds)) or 1.0)
    cell = check_cells("B", course)[-1]  # B.bar, the dearest check to run twice
    exec(cell.source, {})
    assert calls == [("B.bar", "grading")]
    released = ClearHiddenTests().preprocess_cell(nbformat.from_dict(cell), {}, 0)[0]
    calls.clear()
    exec(released.source, {})
    assert calls == [("B.bar", "public")] and "grading" not in released.source
    assert released.source.splitlines()[-1].startswith("grade_cell(")  # the last expression: the cell's score
