"""The notebooks' autograded cells agree with course.yml, and a check cell reports like the command line does."""

import json
import shutil

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
    assert "D.kl_penalty passed on the public seeds: 1 / 1 point" in out.out and out.err == ""


def test_a_failing_check_cell_returns_zero_without_raising(capsys, monkeypatch):
    monkeypatch.chdir(paths.ASSIGNMENTS / "D_grpo")
    assert grade_cell("D.kl_penalty") == 0.0
    assert "is not implemented yet" in capsys.readouterr().out


def test_an_unknown_check_is_named():
    with pytest.raises(ValueError, match="unknown check 'D.nope'"):
        grade_cell("D.nope")


def test_a_check_cell_run_by_a_student_never_reads_the_overlay(tmp_path, capsys, monkeypatch):
    """A kernel runs the student's code: a check cell there loads no grading seed and no secret to be read."""
    from autograder import config

    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [3210987654, 1234]}\nsecret: kernel-must-not-see-this\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(overlay))
    monkeypatch.setattr(config, "_apply_overlay", lambda *a: pytest.fail("the overlay was read in the kernel"))
    assert grade_cell("D.kl_penalty", folder=paths.SOLUTIONS / "D_grpo") == 1.0
    assert "D.kl_penalty passed on the public seeds: 1 / 1 point" in capsys.readouterr().out


def released_check_cell(check_id: str) -> str:
    folder = PROJECTS[check_id.split(".")[0]].folder
    notebook = nbformat.read(paths.ASSIGNMENTS / folder / f"{folder}.ipynb", as_version=4)
    return next(c.source for c in notebook.cells if c.source.endswith(f'grade_cell("{check_id}")'))


def test_in_the_kit_a_released_check_cell_runs_the_kits_own_check(capsys, monkeypatch):
    """The released cell calls the students' checker; the kit's copy of it holds no expected values, so there the
    cell runs the kit's check (its verdict says "1 point", the students' checker's "1 points")."""
    import capstone_check.notebook

    assert not capstone_check.notebook.EXPECTED.exists()
    monkeypatch.chdir(paths.SOLUTIONS / "D_grpo")
    *body, last = released_check_cell("D.kl_penalty").splitlines()
    scope = {}
    exec("\n".join(body), scope)
    assert eval(last, scope) == 1.0
    assert "D.kl_penalty passed on the public seeds: 1 / 1 point\n" in capsys.readouterr().out


def test_a_checker_without_expected_values_or_a_kit_beside_it_says_what_to_install(monkeypatch):
    import sys

    from capstone_check.notebook import grade_cell
    from capstone_check.runner import CheckerError

    monkeypatch.setitem(sys.modules, "autograder.notebook", None)  # an entry point whose module is gone
    with pytest.raises(CheckerError, match="install the students' kit"):
        grade_cell("D.kl_penalty", folder=paths.SOLUTIONS / "D_grpo")
    monkeypatch.setattr("capstone_check.notebook.entry_points", lambda **named: ())  # no kit installed at all
    with pytest.raises(CheckerError, match="install the students' kit"):
        grade_cell("D.kl_penalty", folder=paths.SOLUTIONS / "D_grpo")


def test_a_check_cell_in_the_full_kit_finds_the_kits_check_by_its_entry_point(monkeypatch, capsys):
    from capstone_check import notebook

    assert not notebook.EXPECTED.is_dir()  # the full kit's checker: no recorded values, so the kit's own check runs
    assert notebook.grade_cell("D.kl_penalty", folder=paths.SOLUTIONS / "D_grpo") == 1.0
    source = (paths.KIT_ROOT / "capstone_check" / "notebook.py").read_text()
    assert "import autograder" not in source and "from autograder" not in source


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


def test_a_check_cell_names_no_seeds_and_scores_nothing_where_a_kernel_grades_it(course, capsys):
    """Released, the cell runs the public check; with its hidden block back (a kernel autograding it, where the
    course's nbgrader_config.py does not grade outside the notebook) it scores nothing and says why."""
    from nbgrader.preprocessors import ClearHiddenTests

    from autograder import notebook

    cell = check_cells("D", course)[2]
    assert cell.source.splitlines()[0] == "# D.kl_penalty (1 point): KL-to-reference penalty folded into the reward"
    scope = {}
    exec(cell.source.rsplit("\n", 1)[0], scope)
    assert scope["grade_cell"] is notebook.graded_outside_the_notebook
    assert scope["grade_cell"]("D.kl_penalty") == 0.0
    assert "graded by `nbgrader autograde` outside the notebook" in capsys.readouterr().out
    released = ClearHiddenTests().preprocess_cell(nbformat.from_dict(cell), {}, 0)[0]
    assert released.source.splitlines()[1:] == ["from capstone_check.notebook import grade_cell",
                                                'grade_cell("D.kl_penalty")']
    assert "seeds" not in released.source and "grading" not in released.source


def test_autograding_writes_the_graders_verdicts_and_scores_any_other_graded_cell_zero(monkeypatch):
    """No kernel runs at autograde: a check cell gets the grader's outputs, whatever it was submitted with; a graded
    code cell that is no check (empty outputs would be full marks to nbgrader) gets an error; the student's own
    cells keep their outputs."""
    from nbgrader.utils import determine_grade

    from autograder.nbautograde import GradeChecks

    def graded(nbgrader_id, points, outputs):
        return nbformat.v4.new_code_cell("1", outputs=outputs, metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": nbgrader_id, "points": points}})

    forged = [nbformat.v4.new_output("execute_result", data={"text/plain": "2.0"}, execution_count=1)]
    verdict = [nbformat.v4.new_output("stream", name="stdout", text="D.weights failed on the grading seeds\n"),
               nbformat.v4.new_output("execute_result", data={"text/plain": "0.0"}, execution_count=None)]
    own = [nbformat.v4.new_output("stream", name="stdout", text="my plot\n")]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('my plot')", outputs=own),
                                               graded("check_D_weights", 2, forged), graded("extra", 5, [])])
    monkeypatch.setattr(GradeChecks, "course", lambda self: None)
    monkeypatch.setattr(GradeChecks, "graded", lambda self, *args: {"check_D_weights": verdict})
    resources = {"nbgrader": {"assignment": "D_grpo", "student": "x"}, "metadata": {"path": "."}}
    cells = GradeChecks().preprocess(notebook, resources)[0].cells
    assert cells[0].outputs == own
    assert determine_grade(cells[1]) == (0.0, 2.0) and cells[1].outputs == verdict
    assert determine_grade(cells[2]) == (0, 5.0) and cells[2].outputs[0].ename == "NotGraded"


def test_nbgraders_release_of_a_project_is_stubbed(tmp_path):
    """What nbgrader's generate_assignment copied verbatim: modules stripped, the reference's own results removed."""
    from autograder.nbrelease import strip_release

    released = tmp_path / "B_ablations"
    shutil.copytree(paths.SOLUTIONS / "B_ablations", released)
    strip_release(released)
    for module in released.glob("*.py"):
        assert module.read_text() == (paths.ASSIGNMENTS / "B_ablations" / module.name).read_text(), module
    assert not (released / "results.json").exists()
