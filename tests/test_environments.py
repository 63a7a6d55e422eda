"""Each environment the kit may grade in, told apart: what the grader picks, enforces and says there (the table in
docs/environments.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.cli import main
from autograder.report.table import AS_ROOT
from autograder.sandbox import user

from conftest import quick_course_data

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop needs root")


@pytest.fixture
def quick_d(tmp_path):
    """A course of D's two quick checks, graded in seconds."""
    course = tmp_path / "course.yml"
    course.write_text(yaml.safe_dump(quick_course_data({"D": ("D.weights", "D.kl_penalty")})))
    return course


def make_picks(path: str) -> str:
    """The Python ``make`` would build the venv from, with ``path`` first on PATH."""
    done = subprocess.run(["make", "-n", "-p", "clean"], cwd=paths.KIT_ROOT, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}, timeout=60)
    return re.search(r"^PYTHON := (.*)$", done.stdout, re.M).group(1)


@root_only
@pytest.mark.skipif(not (paths.KIT_ROOT / "Makefile").is_file() or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs the kit's Makefile and a system Python")
def test_make_as_root_builds_the_venv_from_a_python_the_sandbox_uids_can_run(tmp_path):
    closed = tmp_path / "home"  # a Python under a folder closed to others, as pyenv's under root's home
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(closed / "venv")], check=True)
    closed.chmod(0o700)
    assert make_picks(str(closed / "venv" / "bin")) == "/usr/bin/python3"
    assert make_picks(str(Path(sys.executable).parent)) == "python3"  # reachable: the python3 found is kept


@root_only
def test_the_score_table_says_when_student_code_ran_as_root(quick_d, capsys, monkeypatch):
    argv = ["--course", str(quick_d), "grade", str(paths.SOLUTIONS), "--projects", "D", "--seeds", "public"]
    assert main(argv) == 0
    assert AS_ROOT not in capsys.readouterr().out
    monkeypatch.setitem(user._python_runs, sys.executable, False)  # as if the sandbox uids could not run Python
    assert main(argv) == 0
    said = " ".join(capsys.readouterr().out.split())  # the title, however the terminal's width wraps it
    assert f"(public seeds) [{AS_ROOT}]" in said
