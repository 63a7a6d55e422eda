"""The kit as an nbgrader course, all four projects: after ``autograder release`` real nbgrader commands (run from
the virtual environment without activating it) in a temporary course folder give the same scores as ``autograder
grade``, keep the students' modules, copy nothing the reference made into a student's folder, raise no checksum
alarm on untouched check cells, bring back a deleted cell, and never print the grading seeds."""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import paths
from autograder.config import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from autograder.release import release

SECRET_SEEDS = [3_918_273_645, 564_738_291]  # unsorted, large, distinctive
SECRET = "nb-course-secret-5d2c8e1a"
# a student whose update prints the seed of the generator the grader's training loop hands it
ECHO = "    raise RuntimeError(f'my seed is {rng.bit_generator.seed_seq.entropy}')\n"
# One student per project, cheap where the project is expensive: a full reference run of every notebook would cost
# minutes each (the notebooks themselves are run in test_notebooks).
STUDENTS = {"A": "mallory",  # the reference, except that ppo_update prints its generator's seed instead of training
            "B": "bob", "C": "bob",  # the pristine stubs
            "D": "carol"}  # the reference, with one check cell deleted and the experiments left out of the notebook


def nbgrader(course_root: Path, *args: str) -> str:
    """``.venv/bin/nbgrader`` run as an instructor would, with the virtual environment not activated."""
    venv_bin = Path(sys.executable).parent
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != venv_bin)
    done = subprocess.run([str(venv_bin / "nbgrader"), *args], cwd=course_root, env={**os.environ, "PATH": path},
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def submit(course_root: Path, student: str, folder: str, module_source: Path | None = None, edit_notebook=None):
    """A student's submission: the released folder, their module, their notebook."""
    target = course_root / "submitted" / student / folder
    shutil.copytree(course_root / "assignments" / folder, target)
    if module_source is not None:
        shutil.copy(module_source, target / module_source.name)
    if edit_notebook:
        notebook_path = target / f"{folder}.ipynb"
        notebook = nbformat.read(notebook_path, as_version=4)
        edit_notebook(notebook)
        nbformat.write(notebook, notebook_path)


def graded_cells_only(notebook, drop: str | None = None) -> None:
    """Keep the cells nbgrader grades and the text; leave out the experiments (and the check cell ``drop``)."""
    notebook.cells = [c for c in notebook.cells if (c.cell_type == "markdown" or "nbgrader" in c.metadata)
                      and c.get("id") != drop]


@pytest.fixture(scope="module")
def course_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    shutil.copy(paths.KIT_ROOT / "nbgrader_config.py", root)
    shutil.copy(paths.COURSE_FILE, root)  # a course folder is the one holding course.yml
    for project in STUDENTS:
        shutil.copytree(paths.SOLUTIONS / PROJECTS[project].folder, root / "solutions" / PROJECTS[project].folder)
    overlay = root / "private.yml"
    overlay.write_text(f"seeds: {{grading: {SECRET_SEEDS}}}\nsecret: {SECRET}\n")
    os.environ["AUTOGRADER_PRIVATE"] = str(overlay)
    try:
        release(solutions=root / "solutions", assignments=root / "assignments")  # registers each in the gradebook
        echoing = root / "echoing" / "ppo.py"
        echoing.parent.mkdir()
        echoing.write_text((paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text().replace(
            '    B = len(batch["actions"])\n', ECHO, 1))
        submit(root, "mallory", "A_ppo", echoing, edit_notebook=graded_cells_only)
        submit(root, "bob", "B_ablations")
        submit(root, "bob", "C_diagnosis")
        submit(root, "carol", "D_grpo", paths.SOLUTIONS / "D_grpo" / "grpo.py",
               edit_notebook=lambda nb: graded_cells_only(nb, drop="check-D-weights"))
        logs = {}
        for project in STUDENTS:
            logs[project] = nbgrader(root, "autograde", PROJECTS[project].folder, "--create")
            nbgrader(root, "generate_feedback", PROJECTS[project].folder)
        nbgrader(root, "export", "--to", str(root / "grades.csv"))
        (root / "autograde-logs.json").write_text(json.dumps(logs))
        yield root
    finally:
        os.environ.pop("AUTOGRADER_PRIVATE", None)


def cell_scores(course_root: Path, student: str, folder: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_root / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(folder, folder, student)
        return {g.name: g.score for g in notebook.grades if g.name.startswith("check_")}


@pytest.mark.parametrize("project", list(STUDENTS))
def test_nbgrader_scores_equal_the_autograders(course_root, project):
    folder, student = PROJECTS[project].folder, STUDENTS[project]
    course = load_course(private=course_root / "private.yml")
    report = grade(course_root / "submitted" / student / folder, course, seed_set="grading").report.to_json()
    expected = {f"check_{c['id'].replace('.', '_')}": c["score"] for c in report["projects"][project]["checks"]}
    assert cell_scores(course_root, student, folder) == pytest.approx(expected)
    if student == "bob":
        assert sum(expected.values()) == 0
    if student == "carol":
        assert sum(expected.values()) == sum(c.points for c in course.projects[project].checks.values())


def test_the_students_module_is_graded_not_the_source_copy(course_root):
    for folder in ("B_ablations", "C_diagnosis"):
        for module in (course_root / "autograded" / "bob" / folder).glob("*.py"):
            assert "raise NotImplementedError()" in module.read_text(), module


def test_nothing_the_reference_made_reaches_a_student(course_root):
    assert (course_root / "solutions" / "B_ablations" / "results.json").exists()
    for kind in ("autograded", "feedback"):
        left = sorted(p.name for p in (course_root / kind / "bob" / "B_ablations").iterdir())
        assert "results.json" not in left and not any(name.endswith(".png") for name in left), (kind, left)


def test_untouched_check_cells_raise_no_checksum_alarm(course_root):
    logs = json.loads((course_root / "autograde-logs.json").read_text())
    for project, log in logs.items():
        alarms = [line for line in log.splitlines() if "has changed" in line]
        assert alarms == [], (project, alarms)


def test_a_deleted_check_cell_is_added_back_and_said_so(course_root):
    scores = cell_scores(course_root, "carol", "D_grpo")
    assert scores["check_D_weights"] == 2.0  # re-added and run on carol's (correct) module
    feedback = (course_root / "feedback" / "carol" / "D_grpo" / "D_grpo.html").read_text()
    assert "was missing from the submission" in feedback


def test_feedback_never_shows_the_grading_seeds_or_the_secret(course_root):
    pages = list((course_root / "feedback").rglob("*.html"))
    assert len(pages) == len(STUDENTS)
    notebooks = list((course_root / "autograded").rglob("*.ipynb"))
    # the echo reached the check's child; the cell says what happened in the kit's words, never the child's
    feedback = (course_root / "feedback" / "mallory" / "A_ppo" / "A_ppo.html").read_text()
    assert "your code raised RuntimeError" in feedback
    for page in pages + notebooks:
        text = page.read_text()
        assert "### BEGIN HIDDEN TESTS" not in text or page.suffix == ".ipynb"
        for value in [*map(str, SECRET_SEEDS), SECRET]:
            assert value not in text, (page, value)


def test_export_lists_every_student_and_project(course_root):
    rows = list(csv.DictReader((course_root / "grades.csv").open()))
    assert {(r["assignment"], r["student_id"]) for r in rows} >= {
        (PROJECTS[p].folder, student) for p, student in STUDENTS.items()}
    carol = next(r for r in rows if r["assignment"] == "D_grpo" and r["student_id"] == "carol")
    assert float(carol["raw_score"]) >= 20  # every autograded point; written answers wait for a human
