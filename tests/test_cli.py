"""The command line: exit 0 whenever grading completed, 2 with a sentence for usage errors."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema

from autograder import paths
from autograder.cli import main

REPORT_SCHEMA = json.loads((Path(__file__).parent / "data" / "report.schema.json").read_text())


def test_check_finds_the_project_folder_from_where_the_student_stands(tmp_path, monkeypatch, capsys):
    shutil.copytree(paths.ASSIGNMENTS / "D_grpo", tmp_path / "D_grpo")
    for where in (tmp_path, tmp_path / "D_grpo"):
        monkeypatch.chdir(where)
        assert main(["check", "D", "--json", str(tmp_path / "r.json")]) == 0
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["seeds"] == "public" and report["score"] == 0
        jsonschema.validate(report, REPORT_SCHEMA)  # the report as docs/report-schema.md documents it
        assert "not implemented" in capsys.readouterr().out


def test_check_from_the_kit_root_uses_the_assignments_folder(monkeypatch, capsys):
    monkeypatch.chdir(paths.KIT_ROOT)
    assert main(["check", "D", "--jobs", "2"]) == 0
    assert "assignments/D_grpo" in capsys.readouterr().err


def test_a_path_that_is_not_a_folder_is_a_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_an_unknown_project_is_a_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path), "--projects", "Q"]) == 2
    assert "unknown project Q" in capsys.readouterr().err
    assert main(["check", "Q"]) == 2
    assert main(["compare", str(tmp_path), "--projects", "D,Q"]) == 2  # before any grading
    assert "--projects: unknown project Q" in capsys.readouterr().err


def test_a_bad_course_file_is_a_usage_error_naming_the_key(tmp_path, capsys):
    bad = tmp_path / "course.yml"
    bad.write_text(paths.COURSE_FILE.read_text().replace("jobs: 2", "jobz: 2"))
    assert main(["grade", str(tmp_path), "--course", str(bad)]) == 2
    assert "jobz: unknown key" in capsys.readouterr().err


def test_a_submission_without_the_project_still_gets_a_report(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    assert main(["grade", str(tmp_path / "sub"), "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["score"] == 0 and "no D_grpo folder found" in report["projects"]["D"]["checks"][0]["message"]


def test_the_module_entry_point_works():
    done = subprocess.run([sys.executable, "-m", "autograder", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "grade" in done.stdout and "release" in done.stdout
    assert "thin layer" not in done.stdout and "``" not in done.stdout  # said to users, not to the kit's developers
    assert "autograder check D" in done.stdout and "autograder init DIR" in done.stdout


def test_a_warning_is_one_line_for_the_instructor_said_once(tmp_path, monkeypatch, capsys):
    """The kit's warnings (the sandbox's "student code will run as root") reach the terminal as one line each, once
    a run, without Python's file, line number and source line."""
    import warnings

    def warns(args):
        for uid in (61000, 61000, 61001):
            warnings.warn(f"running as root, but uid {uid} cannot run this Python", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr("autograder.course_commands.cmd_init", warns)
    assert main(["init", str(tmp_path / "course")]) == 0
    said = capsys.readouterr().err
    assert said.count("warning: running as root, but uid 61000") == 1 and "uid 61001" in said
    assert "RuntimeWarning" not in said and "warnings.warn" not in said and ".py:" not in said
