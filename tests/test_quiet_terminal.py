"""An instructor's terminal shows the kit's own words only: `release`, `student-kit --wheel`, `grade` and `grade-all`
run with numpy's and matplotlib's warnings turned into errors (in the command and in every process it starts), and
print no warning line.

The course is the kit's, cut to two quick checks of D (D's expected values are where numpy once warned, on a group
of one sample); the mistakes' catalogue of every project is still recorded into the students' bundle."""

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from autograder.kit import init_course
from tests.support.grading import quick_course_data

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

# Python's -W filters match a module by its whole name, so each category is made an error wherever it is raised; the
# kit's own warnings are UserWarnings of autograder.sandbox, which the check on stderr below would show.
LIBRARY_WARNINGS = ",".join(f"error::{category}" for category in (
    "RuntimeWarning", "DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = init_course(tmp_path_factory.mktemp("quiet") / "kit")
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty")}, folder / "course.yml")
    (folder / "course.yml").write_text(yaml.safe_dump(data))
    for kind in ("solutions", "assignments"):
        for project in (folder / kind).iterdir():
            if project.name != "D_grpo":
                shutil.rmtree(project)
    (folder / "class" / "alice").mkdir(parents=True)
    shutil.copytree(folder / "solutions" / "D_grpo", folder / "class" / "alice" / "D_grpo")
    return folder


def run(course, *args):
    env = {**os.environ, "PYTHONWARNINGS": LIBRARY_WARNINGS, "MPLBACKEND": "Agg"}
    env.pop("AUTOGRADER_PRIVATE", None)
    done = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"autograder {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    said = done.stdout + done.stderr
    assert "Warning" not in said and "warning:" not in said, f"autograder {' '.join(args)} printed:\n{said}"
    return done


@pytest.mark.parametrize("args", [
    ("release",),
    ("student-kit", "--wheel", "--out", "kit-out"),
    ("grade", "class/alice", "--projects", "D", "--report", "alice-report"),
    ("grade-all", "class", "--out", "grades", "--projects", "D", "--jobs", "1"),
], ids=lambda args: args[0])
def test_a_command_prints_no_library_warning(course, args):
    run(course, *args)


def test_the_wheels_path_is_printed_whole_on_its_line(course):
    said = run(course, "student-kit", "--wheel", "--out", "kit-wheel").stderr
    last = said.rstrip("\n").splitlines()[-1]
    assert last.startswith("its wheel: ") and last.endswith(".whl") and " " not in last[len("its wheel: "):], said
