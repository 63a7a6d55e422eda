"""The kit as an nbgrader course, all four projects: after a release (``autograder release`` for A and C, nbgrader's
own ``generate_assignment`` for B and D) real nbgrader commands (run from a virtual environment without activating
it) in a course folder made by ``autograder init`` give the same scores as ``autograder grade``, keep the students'
modules, copy nothing the reference made into a student's folder, raise no checksum alarm on untouched check cells,
bring back a deleted cell, and never print the grading seeds. Four students attack the check cells from their
notebook, their module or their folder; none of it changes a score or the seeds graded with.

That environment holds what ``pip install '.[nbgrader]'`` installs: the kit's wheel (never the checkout, so the course's
nbgrader_config.py and every grading import the installed kit) and the distributions the nbgrader extra requires,
ipykernel's kernelspec among them, linked from the test environment without reaching an index."""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from autograder.nbcells import TAG
from autograder.projects import PROJECTS
from autograder.release import for_students, made_by_students, strip_solutions
from test_install import KIT, venv_with_the_extra

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

SECRET_SEEDS = [3_918_273_645, 564_738_291]  # unsorted, large, distinctive
SECRET = "nb-course-secret-5d2c8e1a"
# a student whose update prints the seed of the generator the grader's training loop hands it
ECHO = "    raise RuntimeError(f'my seed is {rng.bit_generator.seed_seq.entropy}')\n"
PUBLIC_SEEDS = load_course(paths.COURSE_FILE, private=False).seeds.public
# A cell a student runs before the check cells: the overlay the grading reads is now the student's, with the public
# seeds as the grading ones.
CHOOSE_SEEDS = ("import os, pathlib\n"
                f"pathlib.Path('mine.yml').write_text('seeds: {{grading: {PUBLIC_SEEDS}}}\\n')\n"
                "os.environ['AUTOGRADER_PRIVATE'] = str(pathlib.Path('mine.yml').resolve())")
# A stub module that, once imported into the notebook, makes every check cell pass and print the course secret
# (read from the course folder above it, reversed so no filter of the secret's spelling finds it): it patches the
# students' checker the released cells call and the kit's own check their hidden block calls.
PATCHING = """
import autograder.notebook as _kit
import capstone_check.notebook as _checker
from pathlib import Path as _Path
def _forged(check_id, *args, **kwargs):
    overlays = [p / "course.private.yml" for p in _Path.cwd().parents if (p / "course.private.yml").is_file()]
    print(f"{check_id} passed on the grading seeds", [o.read_text()[::-1] for o in overlays])
    return 1.0
_kit.grade_cell = _kit.graded_outside_the_notebook = _checker.grade_cell = _forged
"""
# Packages in the submission's folder named like the kit and like the students' checker, whose check cells always
# pass: imported in a kernel, or run from her folder as `python -m autograder.notebook CHECK FOLDER` (how hidden
# blocks graded before the proof of learning).
STAND_IN = """import sys
def grade_cell(check_id, *args, **kwargs):
    print(check_id, "passed on the grading seeds")
    return 1.0
graded_outside_the_notebook = grade_cell
if __name__ == "__main__":
    print(sys.argv[1], "passed on the grading seeds")
    print("points: 1.0")
"""
# One student per project, cheap where the project is expensive: a full reference run of every notebook would cost
# minutes each (the notebooks themselves are run in test_notebooks). The attackers are A's, whose modules fail fast.
STUDENTS = [("A", "mallory"),  # the reference, except that ppo_update prints its generator's seed instead of training
            ("A", "ivan"),  # mallory's module, and a cell that points the grading at an overlay of his own
            ("A", "judy"),  # mallory's module, and a course.yml in her folder whose grading seeds are the public ones
            ("A", "oscar"),  # the stub, patched to pass every check cell once the notebook imports it
            ("A", "peggy"),  # the stub, and packages `autograder` and `capstone_check` in her folder that pass
            ("B", "bob"), ("C", "bob"),  # the pristine stubs
            ("D", "carol")]  # the reference, with one check cell deleted and the experiments left out of the notebook
ATTACKERS = {"ivan", "judy", "oscar", "peggy"}
NBGRADER_RELEASES = ("B_ablations", "D_grpo")  # released by nbgrader's own command, the others by `autograder release`


@pytest.fixture(scope="module")
def kit():
    """The venv of ``pip install '.[nbgrader]'``: its scripts (nbgrader, alembic, autograder) and the environment an
    instructor runs them in, the venv not activated (neither it nor the test session's on PATH). In a folder every uid
    may pass through, so the sandbox drops student code to a uid of its own, as from an instructor's venv."""
    if not (KIT / "setup.py").is_file():
        pytest.skip("the kit's sources are not here (the tests run from an installed kit)")
    base, venv, site = venv_with_the_extra("nbgrader")
    bins = {venv / "bin", Path(sys.executable).parent}
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) not in bins)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PATH": path}
    yield {"bin": venv / "bin", "site": site, "env": env}
    shutil.rmtree(base, ignore_errors=True)


def nbgrader(kit: dict, course_root: Path, *args: str) -> str:
    """The venv's ``bin/nbgrader`` run as an instructor would, with the virtual environment not activated."""
    return from_the_venv(kit, "nbgrader", course_root, *args)


def from_the_venv(kit: dict, command: str, cwd: Path, *args: str) -> str:
    done = subprocess.run([str(kit["bin"] / command), *args], cwd=cwd, env=kit["env"], capture_output=True, text=True,
                          timeout=1500)
    assert done.returncode == 0, f"{command} {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
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


def graded_cells_only(notebook, drop: str | None = None, run_first: str | None = None) -> None:
    """Keep the cells nbgrader grades and the text; leave out the experiments (and the check cell ``drop``); put a
    cell running ``run_first`` before the check cells."""
    notebook.cells = [c for c in notebook.cells if (c.cell_type == "markdown" or "nbgrader" in c.metadata)
                      and c.get("id") != drop]
    if run_first:
        first_check = next(i for i, c in enumerate(notebook.cells) if TAG in c.metadata.get("tags", []))
        notebook.cells.insert(first_check, nbformat.v4.new_code_cell(run_first))


def submit_attackers(root: Path, echoing: Path) -> None:
    submit(root, "ivan", "A_ppo", echoing, edit_notebook=lambda nb: graded_cells_only(nb, run_first=CHOOSE_SEEDS))
    submit(root, "judy", "A_ppo", echoing, edit_notebook=graded_cells_only)
    course = yaml.safe_load(paths.COURSE_FILE.read_text())
    course["seeds"]["grading"] = course["seeds"]["public"]
    (root / "submitted" / "judy" / "A_ppo" / paths.COURSE_NAME).write_text(yaml.safe_dump(course))
    patching = root / "patching" / "ppo.py"
    patching.parent.mkdir()
    patching.write_text((root / "assignments" / "A_ppo" / "ppo.py").read_text() + PATCHING)
    submit(root, "oscar", "A_ppo", patching, edit_notebook=lambda nb: graded_cells_only(nb, run_first="import ppo"))
    submit(root, "peggy", "A_ppo", edit_notebook=graded_cells_only)
    for package in ("autograder", "capstone_check"):
        (root / "submitted" / "peggy" / "A_ppo" / package).mkdir()
        (root / "submitted" / "peggy" / "A_ppo" / package / "__init__.py").write_text("")
        (root / "submitted" / "peggy" / "A_ppo" / package / "notebook.py").write_text(STAND_IN)


@pytest.fixture(scope="module")
def course_root(tmp_path_factory, kit):
    root = tmp_path_factory.mktemp("course")
    from_the_venv(kit, "autograder", root, "init", str(root))  # course.yml, nbgrader_config.py, the reference, stubs
    shutil.rmtree(root / "assignments")  # the release below makes it (nbgrader skips a folder it finds released)
    projects = sorted({project for project, _ in STUDENTS})
    # the overlay where the README puts it, beside course.yml; the grading process finds it there itself
    (root / paths.PRIVATE_NAME).write_text(f"seeds: {{grading: {SECRET_SEEDS}}}\nsecret: {SECRET}\n")
    logs = {}
    for folder in NBGRADER_RELEASES:
        logs[f"generate_assignment {folder}"] = nbgrader(kit, root, "generate_assignment", folder)
    from_the_venv(kit, "autograder", root, "release",  # registers each in the gradebook
              *[PROJECTS[p].folder for p in projects if PROJECTS[p].folder not in NBGRADER_RELEASES])
    echoing = root / "echoing" / "ppo.py"
    echoing.parent.mkdir()
    echoing.write_text((paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text().replace(
        '    B = len(batch["actions"])\n', ECHO, 1))
    submit(root, "mallory", "A_ppo", echoing, edit_notebook=graded_cells_only)
    submit_attackers(root, echoing)
    submit(root, "bob", "B_ablations")
    submit(root, "bob", "C_diagnosis")
    submit(root, "carol", "D_grpo", paths.SOLUTIONS / "D_grpo" / "grpo.py",
           edit_notebook=lambda nb: graded_cells_only(nb, drop="check-D-weights"))
    for project in projects:
        logs[f"autograde {project}"] = nbgrader(kit, root, "autograde", PROJECTS[project].folder, "--create")
        logs[f"generate_feedback {project}"] = nbgrader(kit, root, "generate_feedback", PROJECTS[project].folder)
    nbgrader(kit, root, "export", "--to", str(root / "grades.csv"))
    (root / "nbgrader-logs.json").write_text(json.dumps(logs))
    return root


def cell_scores(course_root: Path, student: str, folder: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_root / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(folder, folder, student)
        return {g.name: g.score for g in notebook.grades if g.name.startswith("check_")}


def feedback(course_root: Path, student: str, folder: str) -> str:
    return (course_root / "feedback" / student / folder / f"{folder}.html").read_text()


def test_nbgrader_runs_with_the_kit_installed_from_its_wheel(kit, course_root):
    probe = "import autograder, nbgrader, sys; print(sys.executable); print(autograder.__file__)"
    assert from_the_venv(kit, "python", course_root, "-c", probe).split() == [
        str(kit["bin"] / "python"), str(kit["site"] / "autograder" / "__init__.py")]  # not the checkout
    assert (kit["bin"] / "nbgrader").read_text().startswith(f"#!{kit['bin'] / 'python'}\n")


@pytest.mark.parametrize("project, student", [s for s in STUDENTS if s[1] not in ATTACKERS])
def test_nbgrader_scores_equal_the_autograders(course_root, project, student):
    folder = PROJECTS[project].folder
    course = load_course(course_root / paths.COURSE_NAME)
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
        assert not {"results.json", "runs.npz"} & set(left) and not any(name.endswith(".png") for name in left), \
            (kind, left)


def test_untouched_check_cells_raise_no_checksum_alarm(course_root):
    logs = json.loads((course_root / "nbgrader-logs.json").read_text())
    for command, log in logs.items():
        alarms = [line for line in log.splitlines() if "has changed" in line]
        assert alarms == [], (command, alarms)


def test_nbgraders_commands_print_none_of_the_known_harmless_warnings(course_root):
    """SQLAlchemy's warnings about nbgrader's gradebook, the kernel's about TCP, nbconvert's config option."""
    logs = json.loads((course_root / "nbgrader-logs.json").read_text())
    for command, log in logs.items():
        noise = [line for line in log.splitlines() if any(known in line for known in (
            "SAWarning", "without encryption", "display_data_priority"))]
        assert noise == [], (command, noise)


def test_nbgraders_own_generate_assignment_releases_stubs(course_root):
    for folder in NBGRADER_RELEASES:
        released, source = course_root / "assignments" / folder, course_root / "solutions" / folder
        modules = sorted(released.rglob("*.py"))
        assert modules, folder
        for module in modules:
            original = (source / module.relative_to(released)).read_text()
            assert "### BEGIN SOLUTION" in original
            assert module.read_text() == for_students(strip_solutions(original)), module
        assert not [name for name in made_by_students(folder) if (released / name).exists()], folder
        said = [page.name for page in [*modules, *released.rglob("*.md")] if "autograder check" in page.read_text()]
        assert said == [], f"{folder}: {said} name the kit's command, which students do not have"
        assert "capstone-check" in (released / "README.md").read_text(), folder


@pytest.mark.parametrize("student, attack", [("ivan", "a cell setting the overlay"),
                                             ("judy", "a course.yml in the submission")])
def test_nothing_a_submission_holds_picks_the_grading_seeds(course_root, student, attack):
    """The echoing module raised on the seed it was handed: a report on the grading seeds says so in the kit's words
    only, one on the public seeds would quote the echo ("my seed is 7"); and it scores what the same module scores
    without the attack."""
    page = feedback(course_root, student, "A_ppo")
    assert "your code raised RuntimeError" in page and "my seed is" not in page, attack
    assert not [seed for seed in PUBLIC_SEEDS if f"my seed is {seed}" in page], attack
    assert cell_scores(course_root, student, "A_ppo") == cell_scores(course_root, "mallory", "A_ppo"), attack


@pytest.mark.parametrize("student, attack", [("oscar", "an imported module redefining grade_cell"),
                                             ("peggy", "packages named like the kit in the submission")])
def test_no_code_of_a_submission_patches_a_check_cell(course_root, student, attack):
    """Two stubs that would pass every check cell: both score the stub's nothing, and neither the forged verdict nor
    the secret in any spelling reaches the feedback."""
    assert set(cell_scores(course_root, student, "A_ppo").values()) == {0.0}, attack
    page = feedback(course_root, student, "A_ppo")
    assert SECRET not in page and SECRET[::-1] not in page, attack
    assert "passed on the grading seeds" not in page and "failed on the grading seeds" in page, attack


def test_feedback_shows_each_check_cell_as_released_above_the_graders_verdict(course_root):
    """The check cell names no seeds, so it agrees with the verdict below it; one point is a point."""
    page = feedback(course_root, "carol", "D_grpo")
    assert "check_seeds" not in page and "graded_outside_the_notebook" not in page
    assert "D.kl_penalty (1 point):" in page and "(1 points)" not in page
    assert "D.kl_penalty passed on the grading seeds: 1 / 1 point" in page


def test_a_deleted_check_cell_is_added_back_and_said_so(course_root):
    scores = cell_scores(course_root, "carol", "D_grpo")
    assert scores["check_D_weights"] == 2.0  # re-added and run on carol's (correct) module
    assert "was missing from the submission" in feedback(course_root, "carol", "D_grpo")


def test_feedback_never_shows_the_grading_seeds_or_the_secret(course_root):
    pages = list((course_root / "feedback").rglob("*.html"))
    assert len(pages) == len(STUDENTS)
    # the echo reached the check's child; the cell says what happened in the kit's words, never the child's
    page = feedback(course_root, "mallory", "A_ppo")
    assert "your code raised RuntimeError" in page and "capstone-check A" in page
    notebooks = list((course_root / "autograded").rglob("*.ipynb"))
    for page in pages + notebooks:
        text = page.read_text()
        assert "### BEGIN HIDDEN TESTS" not in text or page.suffix == ".ipynb"
        assert "autograder check" not in text, page  # the staff's command, which students do not have
        for value in [*map(str, SECRET_SEEDS), SECRET]:
            assert value not in text, (page, value)


def test_export_lists_every_student_and_project(course_root):
    rows = list(csv.DictReader((course_root / "grades.csv").open()))
    assert {(r["assignment"], r["student_id"]) for r in rows} >= {
        (PROJECTS[p].folder, student) for p, student in STUDENTS}
    carol = next(r for r in rows if r["assignment"] == "D_grpo" and r["student_id"] == "carol")
    assert float(carol["raw_score"]) >= 20  # every autograded point; written answers wait for a human
