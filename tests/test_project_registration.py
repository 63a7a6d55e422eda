"""A project registers everything about itself in its own package: its checks and plots (``PROJECT``), and what the
students' checker runs of it (its ``student_kit`` module: ``SPECS`` and the ``KINDS`` of check they make), or it
declares ``students_kit=False``. Nothing of it is left to a silent default, and the checker names no project
anywhere (``test_layout.test_the_checker_names_no_project``)."""

import dataclasses
import json

import pytest

import capstone_check.child
from autograder import paths
from autograder.loader import load_course
from autograder.projects import PROJECTS
from autograder.student_kit import StudentKitError, expected_values, kit_module, runner


@pytest.fixture(scope="module")
def course():
    return load_course(paths.COURSE_FILE, private=False)


def test_a_project_that_declares_no_students_kit_leaves_every_check_to_final_grading(course, monkeypatch):
    monkeypatch.setitem(PROJECTS, "D", dataclasses.replace(PROJECTS["D"], students_kit=False))
    assert {spec["kind"] for spec in expected_values(course, "D")["checks"].values()} == {"final_only"}


def test_a_project_without_its_student_kit_module_is_an_error_naming_it(monkeypatch):
    monkeypatch.setattr(PROJECTS, "package", lambda pid: "autograder.projects._shared")
    with pytest.raises(StudentKitError, match=r"autograder\.projects\._shared\.student_kit.*students_kit=False"):
        kit_module("D")


def test_every_kind_a_project_makes_is_registered_by_it(course):
    checks = expected_values(course, "D")["checks"].values()
    assert all(spec["runner"].startswith("capstone_check.") for spec in checks if spec["kind"] != "final_only")
    assert runner("D", "d_k_sweep") == {"runner": "capstone_check.project_checks.d_grpo.public.sweeps:k_sweep",
                                        "per_seed": True}
    assert runner("D", "calls") == {"runner": "capstone_check.calls:run_calls", "per_seed": False}


def test_a_kind_the_project_did_not_register_is_an_error(monkeypatch):
    monkeypatch.delitem(kit_module("D").KINDS, "d_enumeration")
    with pytest.raises(StudentKitError, match="'d_enumeration'"):
        runner("D", "d_enumeration")


def test_a_kind_run_outside_the_checker_is_refused(monkeypatch):
    monkeypatch.setitem(kit_module("D").KINDS, "d_enumeration", json.dumps)
    with pytest.raises(StudentKitError, match="capstone_check"):
        runner("D", "d_enumeration")


def test_the_checker_runs_only_its_own_functions():
    assert capstone_check.child.runner_of({"runner": "capstone_check.calls:run_calls"}).__name__ == "run_calls"
    with pytest.raises(ValueError, match="not a function of the checker"):
        capstone_check.child.runner_of({"runner": "os:system"})
