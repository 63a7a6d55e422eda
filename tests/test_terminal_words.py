"""An instructor's terminal shows the kit's own words only: `release`, `student-kit --wheel`, `grade` and `grade-all`
run with numpy's and matplotlib's warnings (and any other library's RuntimeWarning) turned into errors, so a library
warning fails the command instead of scrolling past; and what they print says where things are on whole lines."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from autograder.cli import main

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out


@contextmanager
def library_warnings_fail() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("error", module="numpy")
        warnings.filterwarnings("error", module="matplotlib")
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"(?!autograder\.)")
        yield


def strictly(args: list[str], capsys) -> str:
    """What the command ``args`` printed, run with library warnings as errors; it must succeed."""
    with library_warnings_fail():
        code = main(args)
    out, err = capsys.readouterr()
    assert code == 0, (args, out, err)
    assert "warning:" not in err, err
    return out + err


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("terminal") / "course"
    assert main(["init", str(folder)]) == 0
    return folder


def test_the_harness_turns_a_numpy_warning_into_an_error():
    with library_warnings_fail(), pytest.raises(RuntimeWarning, match="Degrees of freedom"):
        np.std(np.array([1.0]), ddof=1)


def test_release_and_the_students_wheel_print_no_library_warning(course, capsys):
    strictly(["--course", str(course), "release"], capsys)
    said = strictly(["--course", str(course), "student-kit", "--out", str(course / "kit"), "--wheel"], capsys)
    wheel = next((course / "kit" / "dist").glob("*.whl"))
    assert f"its wheel: {wheel}\n" in said, said  # the path on one line, whatever the terminal's width


def test_grade_and_grade_all_print_no_library_warning(course, tmp_path, capsys):
    strictly(["--course", str(course), "grade", str(course / "solutions"), "--projects", "D", "--report",
              str(tmp_path / "report")], capsys)
    for student, source in (("alice", "solutions"), ("bob", "assignments")):
        shutil.copytree(course / source / "D_grpo", tmp_path / "class" / student / "D_grpo")
    strictly(["--course", str(course), "grade-all", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
              "--projects", "D", "--similarity"], capsys)
    assert (tmp_path / "out" / "summary.html").is_file()
