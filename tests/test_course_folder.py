"""Course folders: found from where a command runs (or --course), made by `autograder init`, never the kit's own."""

import json
import re

import pytest
import yaml

from autograder import paths
from autograder.cli import main
from autograder.kit import GITIGNORE, init_course

from tests.support.grading import quick_course_data


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder made by `autograder init`."""
    folder = tmp_path_factory.mktemp("init") / "rl-course"
    assert main(["init", str(folder)]) == 0
    return folder


def test_init_makes_a_course_folder_with_the_kits_course(course):
    assert (course / "course.yml").read_text() == paths.COURSE_FILE.read_text()
    assert (course / "nbgrader_config.py").read_text() == (paths.BUNDLED / "nbgrader_config.py").read_text()
    for folder in ("solutions", "assignments"):
        assert sorted(p.relative_to(course / folder) for p in (course / folder).rglob("*.py")) == \
            sorted(p.relative_to(paths.BUNDLED / folder) for p in (paths.BUNDLED / folder).rglob("*.py")
                   if "__pycache__" not in p.parts)
    assert "course.private.yml" in (course / ".gitignore").read_text().splitlines()
    assert not list(course.rglob("course.private.yml")) and not list(course.rglob("__pycache__"))


def test_init_refuses_a_folder_that_holds_something(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "expected a new or empty folder" in err and "notes.txt" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_init_from_a_read_only_kit_makes_a_writable_course(tmp_path):
    source = tmp_path / "kit"
    init_course(source)
    for path in sorted(source.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        made = init_course(tmp_path / "course", source)
        assert all(p.stat().st_mode & 0o200 for p in made.rglob("*"))
    finally:
        for path in source.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)


def test_commands_find_the_course_from_any_folder_inside_it(course, monkeypatch):
    monkeypatch.chdir(course / "solutions" / "D_grpo")
    assert paths.course_root() == course.resolve()
    assert paths.course_file() == course.resolve() / "course.yml"


def test_without_a_course_folder_the_error_says_where_it_looked_and_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["grade", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"no course.yml in {tmp_path}" in err and "autograder init" in err and "--course" in err
    assert main(["--course", str(tmp_path), "release"]) == 2
    assert f"--course {tmp_path}: expected a course folder holding course.yml" in capsys.readouterr().err


def test_course_is_a_global_option_before_or_after_the_command(course, tmp_path, monkeypatch):
    data = quick_course_data({"D": ("D.weights",)}, course / "course.yml")
    other = tmp_path / "other"
    other.mkdir()
    (other / "course.yml").write_text(yaml.safe_dump(data))
    monkeypatch.chdir(course)  # inside another course: --course wins
    (tmp_path / "sub").mkdir()
    for argv in (["--course", str(other), "grade", str(tmp_path / "sub")],
                 ["grade", str(tmp_path / "sub"), "--course", str(other)]):
        assert main([*argv, "--json", str(tmp_path / "r.json")]) == 0
        report = json.loads((tmp_path / "r.json").read_text())
        assert [c["id"] for c in report["projects"]["D"]["checks"]] == ["D.weights"]


def test_release_writes_the_course_folder_it_runs_in_and_nothing_else(course, monkeypatch):
    marker = "# edited in this course only\n"
    source = course / "solutions" / "D_grpo" / "grpo.py"
    source.write_text(marker + source.read_text())
    (course / "solutions" / "D_grpo" / "D_grpo.ipynb").unlink()  # nbgrader's part of release is tested elsewhere
    monkeypatch.chdir(course / "solutions")
    assert main(["release", "D_grpo"]) == 0
    assert (course / "assignments" / "D_grpo" / "grpo.py").read_text().startswith(marker)
    assert marker not in (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()


def test_the_overlay_beside_the_course_file_is_the_one_applied(course, tmp_path, monkeypatch):
    from autograder.loader import load_course

    monkeypatch.delenv("AUTOGRADER_PRIVATE", raising=False)
    (course / "course.private.yml").write_text("seeds: {grading: [8675309]}\n")
    try:
        monkeypatch.chdir(course / "assignments")
        assert load_course().seeds.grading == [8675309]
        assert load_course(paths.COURSE_FILE).private_overlay != str(course / "course.private.yml")
    finally:
        (course / "course.private.yml").unlink()


def test_a_student_folder_outside_any_course_checks_with_the_kits_course(tmp_path, monkeypatch, capsys):
    import shutil

    shutil.copytree(paths.ASSIGNMENTS / "D_grpo", tmp_path / "D_grpo")
    monkeypatch.chdir(tmp_path / "D_grpo")
    assert main(["check", "D", "--json", str(tmp_path / "r.json")]) == 0
    assert "checking with the kit's own course.yml" in capsys.readouterr().err
    assert json.loads((tmp_path / "r.json").read_text())["seeds"] == "public"


def test_the_gitignore_keeps_private_and_student_files_out():
    lines = GITIGNORE.splitlines()
    assert {"course.private.yml", "gradebook.db", "submitted/", "autograded/", "feedback/"} <= set(lines)
    # the Gradescope zip holds the overlay; grades, C's personal logs, downloads and the TA's page are the students'
    assert {"autograder.zip", "grades/", "c-logs/", "submissions/", "compare.html"} <= set(lines)


def test_init_says_the_course_needs_a_secret_and_offers_one(tmp_path, capsys):
    assert main(["init", str(tmp_path / "course")]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "course.private.yml" in said and re.search(r"`secret: [\w-]{24,}`", said), said
    assert main(["init", str(tmp_path / "other")]) == 0
    assert re.search(r"`secret: ([\w-]+)`", said).group(1) not in capsys.readouterr().err, "a fresh secret each time"
