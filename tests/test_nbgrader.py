"""The kit as an nbgrader course: real nbgrader commands in a temporary course folder give the same scores as
``autograder grade``, keep the students' modules, bring back a deleted cell, and never print the grading seeds."""

import csv
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

SECRET_SEEDS = [3_918_273_645, 564_738_291]  # unsorted, large, distinctive
SECRET = "nb-course-secret-5d2c8e1a"
ECHO = "    raise RuntimeError(f'my seed is {seed}')\n"  # a student who prints the seed their train is handed
PROJECT_IDS = ["A", "D"]


def nbgrader(course_root: Path, *args: str) -> str:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_root, env=env, capture_output=True,
                          text=True, timeout=1500)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def submit(course_root: Path, student: str, folder: str, module_source: Path, edit_notebook=None) -> None:
    """A student's submission: the released folder, their module, their notebook."""
    target = course_root / "submitted" / student / folder
    shutil.copytree(course_root / "assignments" / folder, target)
    shutil.copy(module_source, target / module_source.name)
    if edit_notebook:
        notebook_path = target / f"{folder}.ipynb"
        notebook = nbformat.read(notebook_path, as_version=4)
        edit_notebook(notebook)
        nbformat.write(notebook, notebook_path)


@pytest.fixture(scope="module")
def course_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    shutil.copy(paths.KIT_ROOT / "nbgrader_config.py", root)
    folders = [PROJECTS[p].folder for p in PROJECT_IDS]
    for folder in folders:
        shutil.copytree(paths.SOLUTIONS / folder, root / "solutions" / folder)
    overlay = root / "private.yml"
    overlay.write_text(f"seeds: {{grading: {SECRET_SEEDS}}}\nsecret: {SECRET}\n")
    os.environ["AUTOGRADER_PRIVATE"] = str(overlay)
    try:
        for folder in folders:
            nbgrader(root, "generate_assignment", folder, "--force")
            module = f"{PROJECTS[next(p for p in PROJECT_IDS if PROJECTS[p].folder == folder)].modules[0]}.py"
            submit(root, "alice", folder, paths.SOLUTIONS / folder / module)  # the reference
            submit(root, "bob", folder, paths.ASSIGNMENTS / folder / module)  # the pristine stub
        echoing = root / "echoing" / "ppo.py"
        echoing.parent.mkdir()
        echoing.write_text((paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text().replace(
            "    rng = np.random.default_rng(seed)\n", ECHO))
        submit(root, "mallory", "A_ppo", echoing)
        submit(root, "carol", "D_grpo", paths.SOLUTIONS / "D_grpo" / "grpo.py", edit_notebook=lambda nb: setattr(
            nb, "cells", [c for c in nb.cells if c.get("id") != "check-D-weights"]))
        for folder in folders:
            nbgrader(root, "autograde", folder, "--create")
            nbgrader(root, "generate_feedback", folder)
        nbgrader(root, "export", "--to", str(root / "grades.csv"))
        yield root
    finally:
        os.environ.pop("AUTOGRADER_PRIVATE", None)


def cell_scores(course_root: Path, student: str, folder: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_root / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(folder, folder, student)
        return {g.name: g.score for g in notebook.grades if g.name.startswith("check_")}


@pytest.mark.parametrize("project", PROJECT_IDS)
def test_nbgrader_scores_equal_the_autograders(course_root, project):
    folder = PROJECTS[project].folder
    course = load_course(private=course_root / "private.yml")
    for student in ("alice", "bob"):
        report = grade(course_root / "submitted" / student / folder, course, seed_set="grading").report
        expected = {f"check_{c['id'].replace('.', '_')}": c["score"] for c in report["projects"][project]["checks"]}
        assert cell_scores(course_root, student, folder) == pytest.approx(expected)
    assert sum(cell_scores(course_root, "alice", folder).values()) == sum(
        c.points for c in course.projects[project].checks.values())
    assert sum(cell_scores(course_root, "bob", folder).values()) == 0


def test_the_students_module_is_graded_not_the_source_copy(course_root):
    for folder in ("A_ppo", "D_grpo"):
        autograded = next((course_root / "autograded" / "bob" / folder).glob("*.py"))
        assert "raise NotImplementedError()" in autograded.read_text()


def test_a_deleted_check_cell_is_added_back_and_said_so(course_root):
    scores = cell_scores(course_root, "carol", "D_grpo")
    assert scores["check_D_weights"] == 2.0  # re-added and run on carol's (correct) module
    feedback = (course_root / "feedback" / "carol" / "D_grpo" / "D_grpo.html").read_text()
    assert "was missing from the submission" in feedback


def test_feedback_never_shows_the_grading_seeds_or_the_secret(course_root):
    pages = list((course_root / "feedback").rglob("*.html"))
    assert len(pages) == 6
    notebooks = list((course_root / "autograded").rglob("*.ipynb"))
    assert "‹grading seed›" in (course_root / "feedback" / "mallory" / "A_ppo" / "A_ppo.html").read_text()
    for page in pages + notebooks:
        text = page.read_text()
        assert "### BEGIN HIDDEN TESTS" not in text or page.suffix == ".ipynb"
        for value in [*map(str, SECRET_SEEDS), SECRET]:
            assert value not in text, (page, value)


def test_export_lists_every_student_and_project(course_root):
    rows = list(csv.DictReader((course_root / "grades.csv").open()))
    assert {(r["assignment"], r["student_id"]) for r in rows} >= {
        ("A_ppo", "alice"), ("A_ppo", "bob"), ("D_grpo", "alice"), ("D_grpo", "bob"), ("D_grpo", "carol")}
    alice_d = next(r for r in rows if r["assignment"] == "D_grpo" and r["student_id"] == "alice")
    assert float(alice_d["raw_score"]) >= 20  # every autograded point; written answers wait for a human
