"""Progress bars: drawn for a person at a terminal (what runs, how far, how long is left), never into a pipe or CI."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from autograder import paths
from tests.support.grading import quick_course_data, write_submission
from tests.support.terminal import terminal_output

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
BAR = re.compile(r"\d+/\d+ .*\d:\d\d:\d\d elapsed(, \d:\d\d:\d\d left)?")  # done/total, what, times


@pytest.fixture()
def quick(tmp_path):
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty")})
    course = tmp_path / "course.yml"
    course.write_text(yaml.safe_dump(data))
    write_submission(tmp_path / "class" / "ada", REFERENCE)
    return course, tmp_path


def autograder(*args: str) -> list[str]:
    return [sys.executable, "-m", "autograder", *args]


def run_piped(command: list[str], env: dict) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def run_in_a_terminal(command: list[str], env: dict) -> str:
    """``command`` with stdout and stderr on a pseudo-terminal, as a person at a terminal runs it."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal_output(command, env, timeout=300))  # colours, cursor moves


def commands(course, root):
    return [autograder("grade", str(root / "class" / "ada"), "--course", str(course), "--seeds", "public"),
            autograder("grade-all", str(root / "class"), "--out", str(root / "out"), "--course", str(course),
                       "--seeds", "public")]


def test_piped_output_holds_no_progress_bar(quick):
    course, root = quick
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    for command in commands(course, root):
        output = run_piped(command, env)
        assert "D.weights" in output or "1 students" in output  # the results are there
        assert not BAR.search(output) and "elapsed" not in output, output


def test_a_terminal_gets_a_bar_with_the_time_left_and_ci_gets_none(quick):
    course, root = quick
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["COLUMNS"] = "160"
    grade, grade_all = commands(course, root)
    shown = run_in_a_terminal(grade, env)
    assert "grading" in shown and BAR.search(shown), shown
    assert "0/2 importing the modules" in shown and "/?" not in shown and "-:--:--" not in shown, shown
    assert re.search(r"class .*1/1 ada done", run_in_a_terminal(grade_all, env))
    quiet = run_in_a_terminal(grade, {**env, "CI": "true"})
    assert "D.weights" in quiet and "elapsed" not in quiet


def test_the_bar_counts_checks_from_the_start_and_a_per_seed_check_once(quick, monkeypatch):
    """One step per check, however many children it runs (one per seed), and the total known before any ends."""
    from autograder.loader import load_course
    from autograder.grading import grade
    from autograder.projects import PROJECTS

    course, root = quick
    monkeypatch.setattr(type(PROJECTS["D"].checks["D.kl_penalty"]), "per_seed", True)  # three children, one check
    heard = []
    grade(root / "class" / "ada", load_course(course, private=False), seed_set="public",
          progress=lambda what, done, total: heard.append((done, total)))
    assert heard[0] == (0, 2) and heard[-1] == (2, 2) and len(heard) == 3
