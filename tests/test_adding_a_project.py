"""A fifth project is one folder: the template project (scaffold/project/), added to a copy of the kit exactly as
docs/adding-a-project.md says, is released and graded by the unchanged core, and each of its checks (one of plain
calls, one handed a critic and its optimizer) fails a planted bug; the students' kit that release builds runs both
in `capstone-check`; its own tests folder is found by the
kit's unchanged shared tests, which grade its planted bugs and its reference."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import paths

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

TEMPLATE = paths.KIT_ROOT / "scaffold" / "project"
SOLUTION = TEMPLATE / "solution" / "Z_returns" / "returns.py"


def autograder(kit: Path, course: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(kit)}
    env.pop("AUTOGRADER_PRIVATE", None)
    done = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"autograder {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def kit_and_course(tmp_path_factory):
    """A copy of the kit, its code and its shared tests, that is its own course folder, as the kit's checkout is."""
    kit = tmp_path_factory.mktemp("fifth") / "kit"
    skip = shutil.ignore_patterns("__pycache__", "bundled")
    shutil.copytree(paths.PACKAGE, kit / "autograder", ignore=skip)
    shutil.copytree(paths.KIT_ROOT / "tests", kit / "tests", ignore=skip)
    shutil.copy(paths.KIT_ROOT / "pyproject.toml", kit)
    shutil.copytree(TEMPLATE / "package", kit / "autograder" / "projects" / "z_returns")  # steps 1-4: the package
    data = yaml.safe_load(paths.COURSE_FILE.read_text())
    data["projects"] = yaml.safe_load((TEMPLATE / "course.yml").read_text())  # step 5: its course.yml section
    (kit / "course.yml").write_text(yaml.safe_dump(data))
    shutil.copytree(SOLUTION.parent, kit / "solutions" / "Z_returns")  # step 6: its reference solution
    autograder(kit, kit, "release")  # step 6: the stubs (and the students' kit)
    shutil.copytree(TEMPLATE / "tests", kit / "tests" / "projects" / "z_returns")  # step 8: its tests
    return kit, kit


def scores(kit: Path, course: Path, submission: Path) -> dict:
    autograder(kit, course, "grade", str(submission), "--seeds", "public", "--json", str(course / "report.json"))
    report = json.loads((course / "report.json").read_text())
    return {c["id"]: (c["score"], c["message"]) for c in report["projects"]["Z"]["checks"]}


def test_the_released_stub_strips_the_solution(kit_and_course):
    _, course = kit_and_course
    stub = (course / "assignments" / "Z_returns" / "returns.py").read_text()
    assert "raise NotImplementedError()" in stub and "following" not in stub


def test_the_template_reference_earns_every_point_and_its_stub_none(kit_and_course):
    kit, course = kit_and_course
    reference, stub = scores(kit, course, course / "solutions"), scores(kit, course, course / "assignments")
    assert {cid: score for cid, (score, _) in reference.items()} == {"Z.returns": 2, "Z.value_step": 2}, reference
    assert all(score == 0 and "not implemented" in message for score, message in stub.values()), stub


def test_the_template_check_fails_a_planted_bug(kit_and_course, tmp_path):
    kit, course = kit_and_course
    source = SOLUTION.read_text()
    wrong = source.replace("rewards[t] + gamma * following", "gamma * (rewards[t] + following)")
    assert wrong != source
    (tmp_path / "Z_returns").mkdir()
    (tmp_path / "Z_returns" / "returns.py").write_text(wrong)
    score, message = scores(kit, course, tmp_path)["Z.returns"]
    assert score == 0 and "expected" in message


def test_the_template_check_handed_objects_fails_a_planted_bug(kit_and_course, tmp_path):
    kit, course = kit_and_course
    source = SOLUTION.read_text()
    wrong = source.replace("optimizer.step(grads)", "optimizer.step([-g for g in grads])")
    assert wrong != source
    (tmp_path / "Z_returns").mkdir()
    (tmp_path / "Z_returns" / "returns.py").write_text(wrong)
    got = scores(kit, course, tmp_path)
    assert got["Z.returns"][0] == 2 and got["Z.value_step"][0] == 0, got
    said = got["Z.value_step"][1]
    assert "the losses returned were" in said and "(the loss before each step)" in said, said


def capstone_check(course: Path, folder: Path, *args: str) -> str:
    """`capstone-check ARGS` in ``folder``, from the students' kit that `autograder release` built in ``course``."""
    env = {**os.environ, "PYTHONPATH": str(course / "student-kit")}
    done = subprocess.run([sys.executable, "-m", "capstone_check", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    return done.stdout + done.stderr


def test_the_students_checker_runs_the_template_checks(kit_and_course, tmp_path):
    """Both of them, the one handed objects too: its collector and judge, the project's public half, ship in the
    students' kit as a copy that imports nothing of the grader."""
    _, course = kit_and_course
    assert "Z" in capstone_check(course, tmp_path, "--help")
    public = course / "student-kit" / "capstone_check" / "project_checks" / "z_returns" / "public" / "value_step.py"
    assert public.is_file() and "autograder" not in public.read_text().replace("``pieces.ValueStep``", "")
    for given, earned in (("solutions", "2/2"), ("assignments", "0/2")):
        shutil.copytree(course / given / "Z_returns", tmp_path / given / "Z_returns")
        said = capstone_check(course, tmp_path / given, "Z").replace(" ", "")
        assert f"Z.returns{earned}" in said and f"Z.value_step{earned}" in said, said
        assert "4of4pointscheckablehere" in said, said


def planted_in_the_template():
    """The template's tests/mutants.py, read as the kit's shared tests read a project's."""
    spec = importlib.util.spec_from_file_location("template_mutants", TEMPLATE / "tests" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shared_tests_find_and_pass_the_template_tests_unedited(kit_and_course):
    kit, _ = kit_and_course
    planted, shared = planted_in_the_template(), "tests/test_mutants.py::test_"
    chosen = ["tests/projects/z_returns", f"{shared}every_check_has_a_planted_bug_that_it_catches[Z]",
              *(f"{shared}the_planted_bug_is_caught_on_every_seed_and_said_plainly[{m.name}]" for m in planted.MUTANTS),
              *(f"{shared}a_correct_implementation_written_differently_keeps_full_marks[{v.name}]"
                for v in planted.EQUIVALENT)]
    own = sum(test.read_text().count("\ndef test_") for test in (TEMPLATE / "tests").glob("test_*.py"))
    env = {**os.environ, "PYTHONPATH": str(kit)}
    env.pop("AUTOGRADER_PRIVATE", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen], cwd=kit, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    passed = own + 1 + len(planted.MUTANTS) + len(planted.EQUIVALENT)
    assert own >= 2 and f"{passed} passed" in done.stdout, done.stdout


def test_the_template_judge_refuses_data_its_collector_never_sends():
    """What final grading's child sends is untrusted: text where numbers belong is refused as the student's, never a
    crash of the grader."""
    from capstone_check.student import StudentError

    spec = importlib.util.spec_from_file_location("template_value_step",
                                                  TEMPLATE / "package" / "public" / "value_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    forged = {"cases": [{"losses": ["a lot"], "w": [0.0], "b": [0.0], "adam_steps": 3}]}
    with pytest.raises(StudentError, match="expected numbers for the losses"):
        module.judge_value_step({"cases": [{}], "steps": 3, "tolerance": 1e-9}, forged)
