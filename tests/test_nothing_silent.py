"""Nothing decided silently: every command that reads a private overlay says which (never its seeds or secret), two
overlays that disagree stop the command naming both, and C's row says whose logs it judged on every seed set."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml

from autograder import paths
from autograder.cli import main, parser
from autograder.config import CourseError
from autograder.loader import load_course

from tests.support.grading import quick_course_data

SEEDS, SECRET = "[4711, 815, 2026]", "a-secret-no-output-may-hold"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A course folder of D's two quick checks and C's own labels, with an overlay holding seeds and a secret."""
    monkeypatch.delenv("AUTOGRADER_PRIVATE", raising=False)
    data = quick_course_data({"C": ("C.own_labels",), "D": ("D.weights", "D.kl_penalty")})
    (tmp_path / "course.yml").write_text(yaml.safe_dump(data))
    overlay = tmp_path / "course.private.yml"
    overlay.write_text(f"seeds: {{grading: {SEEDS}}}\nsecret: {SECRET}\n")
    overlay.chmod(0o600)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def said_plainly(capsys) -> tuple[str, str]:
    out = capsys.readouterr()
    return " ".join(out.out.split()), " ".join(out.err.split())


@pytest.mark.parametrize("argv", [["gradescope", "--out", "ag.zip", "--projects", "D"],
                                  ["c-logs", "--example", "--out", "logs"]])
def test_a_command_says_which_overlay_it_read_never_what_is_in_it(folder, argv, capsys):
    assert main(argv) == 0
    out, err = said_plainly(capsys)
    assert f"private overlay: {folder / 'course.private.yml'} (grading seeds, and the course secret)" in err
    assert SECRET not in out + err and "4711" not in out + err


def test_an_overlay_without_a_secret_is_said_to_have_none(folder, capsys):
    (folder / "course.private.yml").write_text(f"seeds: {{grading: {SEEDS}}}\n")
    assert main(["gradescope", "--out", "ag.zip", "--projects", "D"]) == 0
    assert "(grading seeds, no course secret)" in said_plainly(capsys)[1]


def test_autograder_private_and_the_course_folders_overlay_disagreeing_is_an_error_naming_both(folder, monkeypatch,
                                                                                                capsys):
    elsewhere = folder / "elsewhere.yml"
    elsewhere.write_text("seeds: {grading: [1, 2, 3]}\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(elsewhere))
    assert main(["gradescope", "--out", "ag.zip", "--projects", "D"]) == 2
    err = said_plainly(capsys)[1]
    assert str(elsewhere) in err and str(folder / "course.private.yml") in err and "--private" in err
    assert not (folder / "ag.zip").exists()
    assert load_course(folder / "course.yml", private=elsewhere).seeds.grading == [1, 2, 3]  # named: no question
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(folder / "course.private.yml"))  # the same file: no conflict
    assert load_course(folder / "course.yml").seeds.grading == [4711, 815, 2026]
    (folder / "course.private.yml").rename(folder / "moved.yml")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(elsewhere))
    assert load_course(folder / "course.yml").seeds.grading == [1, 2, 3]  # one overlay: the environment's
    with pytest.raises(CourseError, match="two private overlays"):
        (folder / "moved.yml").rename(folder / "course.private.yml")
        load_course(folder / "course.yml")


def test_c_says_whose_logs_it_judged_on_the_real_grading_seeds(folder, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # each row on one line
    assert main(["grade", str(paths.SOLUTIONS), "--projects", "C", "--report", "out"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "C.own_labels" in line)
    assert "passed on the grading seeds (the bundled example logs (no student id was given:" in row
    assert "the bundled example logs (no student id was given:" in (folder / "out" / "report.html").read_text()
    assert main(["grade", str(paths.SOLUTIONS), "--projects", "C", "--student", "s1"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "C.own_labels" in line)
    assert "(student s1's own logs)" in row


def test_the_last_line_of_a_release_names_a_command_that_exists(tmp_path, monkeypatch, capsys):
    import autograder.student_kit as kit
    from autograder.student_kit.command import student_kit

    monkeypatch.setattr(kit, "build", lambda root, folder: None)  # the line alone: the bundle is tested elsewhere
    assert student_kit(tmp_path, str(tmp_path / "kit"), wheel=False) == 0
    last = " ".join(capsys.readouterr().err.split())
    named = re.findall(r"`(autograder [^`]+)`", last)
    assert named, last
    for command in named:
        assert parser().parse_args(shlex.split(command)[1:]).run is not None  # argparse exits on an unknown one
