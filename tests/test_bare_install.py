"""The kit installed with no extras, as `pip install .` leaves it: every command grading needs runs, and a command
that needs an extra says which in one line and exits 2.

The fresh environment sees only the distributions the kit requires without extras (and theirs), and what
`python -m venv` puts in every venv (pip; setuptools too before Python 3.12), linked from the test environment: no
index is reached, and nbformat, nbgrader, Dask and the test tools are absent as they are on an instructor's machine."""

import subprocess
import sys
import sysconfig

import pytest
import yaml

from tests.support.alone import install_the_rest, kit_requirements, link_distributions, required_distributions
from tests.support.grading import copy_reference, quick_course_data
from test_install import KIT, run, venv_with_the_wheel

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

EXTRAS_ONLY = ["nbformat", "nbgrader", "ipykernel", "distributed", "pytest"]
SEEDED = ["pip", *(["setuptools"] if sys.version_info < (3, 12) else [])]  # what `python -m venv` installs


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    if not (KIT / "setup.py").is_file():
        pytest.skip("the kit's sources are not here (the tests run from an installed kit)")
    base = tmp_path_factory.mktemp("bare")
    names = kit_requirements() | required_distributions(SEEDED)
    venv, _ = venv_with_the_wheel(base, lambda site: (link_distributions(names, site),
                                                      install_the_rest(names, base / "venv", site)))
    python = venv / "bin" / "python"
    course = base / "course"
    command = [str(venv / "bin" / "autograder")]
    run([*command, "init", str(course)], base)
    (course / "full.yml").write_text((course / "course.yml").read_text())  # c-logs reads C's bar
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty")}, course / "course.yml")
    (course / "course.yml").write_text(yaml.safe_dump(data))
    for student in ("s1", "s2"):
        copy_reference(course / "class" / student, "D_grpo")
    return {"python": python, "command": command, "course": course, "base": base}


def test_the_bare_environment_lacks_every_extra(bare):
    probe = f"import importlib.util as u; print([m for m in {EXTRAS_ONLY!r} if u.find_spec(m)])"
    assert run([str(bare["python"]), "-c", probe], bare["base"]).stdout.strip() == "[]"
    assert sysconfig.get_path("purelib") not in run([str(bare["python"]), "-c", "import sys; print(sys.path)"],
                                                    bare["base"]).stdout


def test_every_grading_command_runs_on_a_bare_install(bare):
    autograder, course = bare["command"], bare["course"]
    assert "grade-all" in run([*autograder, "--help"], course).stdout
    graded = run([*autograder, "grade", "solutions", "--seeds", "public", "--report", "out"], course)
    assert "Dtotal" in graded.stdout.replace(" ", "") and "2/2" in graded.stdout.replace(" ", "")
    assert "<h1>Autograder report</h1>" in (course / "out" / "report.html").read_text()  # the templates shipped
    assert "2/2" in run([*autograder, "check", "D", "--path", "solutions"], course).stdout.replace(" ", "")
    run([*autograder, "compare", "solutions", "--out", "compare.html"], course)
    assert "D.weights" in (course / "compare.html").read_text()
    run([*autograder, "grade-all", "class", "--seeds", "public", "--out", "graded"], course)
    assert (course / "graded" / "s1" / "report.json").is_file()
    run([*autograder, "similarity", "class", "--out", "similar"], course)
    assert (course / "similar" / "similarity.csv").is_file()
    run([*autograder, "gradescope", "--out", "ag.zip"], course)
    assert (course / "ag.zip").is_file()
    run([*autograder, "c-logs", "--example", "--out", "logs", "--course", "full.yml"], course)
    assert sorted(p.name for p in (course / "logs").iterdir()) == ["agent_a.npz", "agent_b.npz", "agent_c.npz"]


def test_the_students_kit_is_built_on_a_bare_install(bare):
    said = run([*bare["command"], "student-kit", "--out", "kit"], bare["course"]).stderr
    assert (bare["course"] / "kit" / "capstone_check" / "expected" / "D.json").is_file()
    assert (bare["course"] / "kit" / "pyproject.toml").is_file() and "student-kit --wheel" in said, said


def test_the_students_wheel_is_built_on_a_bare_install(bare):
    said = run([*bare["command"], "student-kit", "--wheel", "--out", "kit-wheel"], bare["course"]).stderr
    wheels = sorted((bare["course"] / "kit-wheel" / "dist").glob("rl_capstone_student-*.whl"))
    assert len(wheels) == 1 and said.rstrip("\n").splitlines()[-1] == f"its wheel: {wheels[0].resolve()}", said


def test_release_says_which_extra_it_needs_in_one_line(bare):
    done = subprocess.run([*bare["command"], "release", "D_grpo"], cwd=bare["course"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1:] == [
        "error: releasing D_grpo's notebook needs the nbgrader extra (nbformat, nbgrader not installed here): pip "
        "install 'rl-capstone-kit[nbgrader]'"]
    assert "Traceback" not in done.stderr
    done = subprocess.run([*bare["command"], "grade-all", "class", "--out", "graded", "--scheduler", "tcp://[::1]:9"],
                          cwd=bare["course"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1:] == [
        "error: --scheduler needs Dask's distributed, which is not installed here: pip install "
        "'rl-capstone-kit[dask]' (or pip install distributed)"]
