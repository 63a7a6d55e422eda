"""A fifth project is one folder: the template project (templates/project/), added to a copy of the kit exactly as
docs/adding-a-project.md says, is released and graded by the unchanged core, and its check fails a planted bug."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import paths

TEMPLATE = paths.KIT_ROOT / "templates" / "project"
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
    base = tmp_path_factory.mktemp("fifth")
    kit = base / "kit"
    shutil.copytree(paths.PACKAGE, kit / "autograder", ignore=shutil.ignore_patterns("__pycache__", "bundled"))
    shutil.copytree(TEMPLATE / "package", kit / "autograder" / "projects" / "z_returns")  # step 1: the package
    course = base / "course"
    data = yaml.safe_load(paths.COURSE_FILE.read_text())
    data["projects"] = yaml.safe_load((TEMPLATE / "course.yml").read_text())  # step 2: its course.yml section
    course.mkdir()
    (course / "course.yml").write_text(yaml.safe_dump(data))
    shutil.copytree(SOLUTION.parent, course / "solutions" / "Z_returns")  # step 3: its reference solution
    autograder(kit, course, "release")  # step 4: the stubs
    return kit, course


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
    assert scores(kit, course, course / "solutions")["Z.returns"][0] == 2
    score, message = scores(kit, course, course / "assignments")["Z.returns"]
    assert score == 0 and "not implemented" in message


def test_the_template_check_fails_a_planted_bug(kit_and_course, tmp_path):
    kit, course = kit_and_course
    source = SOLUTION.read_text()
    wrong = source.replace("rewards[t] + gamma * following", "gamma * (rewards[t] + following)")
    assert wrong != source
    (tmp_path / "Z_returns").mkdir()
    (tmp_path / "Z_returns" / "returns.py").write_text(wrong)
    score, message = scores(kit, course, tmp_path)["Z.returns"]
    assert score == 0 and "expected" in message
