"""Broken submissions: the affected checks score 0 with a message that says what was expected and what happened;
every other check is still graded, the report is still written, and the exit code is still 0."""

import json

import pytest

from autograder import paths
from autograder.cli import main
from autograder.config import Limits
from tests.support.grading import grade_checks, mutate, write_submission

REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
CHEAP = ["D.weights", "D.kl_penalty", "D.clip_gradient", "D.price_exploit"]
PRICE_BODY = "    logits_ref, rewards = np.asarray(logits_ref, dtype=float), np.asarray(rewards, dtype=float)\n"


def broken(tmp_path, old, new):
    return write_submission(tmp_path, mutate(REFERENCE, old, new))


def assert_only(results: dict, failing: str, *phrases: str):
    for check_id, result in results.items():
        if check_id == failing:
            assert result["score"] == 0, result
            for phrase in phrases:
                assert phrase in result["message"], result["message"]
            assert "Traceback" not in result["message"]
        else:
            assert result["passed"], (check_id, result["message"])


def test_a_syntax_error_fails_every_check_with_its_line_and_exit_code_0(tmp_path):
    root = broken(tmp_path, "def price_exploit(logits_ref, rewards, exploit):",
                  "def price_exploit(logits_ref, rewards, exploit)")
    out = tmp_path / "report"
    assert main(["grade", str(root), "--seeds", "public", "--report", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["score"] == 0
    for check in report["projects"]["D"]["checks"]:
        assert "grpo.py does not compile" in check["message"] and "line" in check["message"]
    assert (out / "report.html").exists()


def test_a_missing_function_costs_only_its_checks(tmp_path, course):
    root = broken(tmp_path, "def price_exploit(logits_ref, rewards, exploit):",
                  "def price_the_exploit(logits_ref, rewards, exploit):")
    assert_only(grade_checks(root, course, CHEAP), "D.price_exploit", "expected a function `price_exploit`",
                "found none")


def test_a_function_that_raises_is_named_with_the_students_line(tmp_path, course):
    root = broken(tmp_path, PRICE_BODY, "    {}['no such key']\n")
    assert_only(grade_checks(root, course, CHEAP), "D.price_exploit", "`price_exploit` raised KeyError",
                "grpo.py, line")


def test_nan_is_reported_as_not_a_number(tmp_path, course):
    root = broken(tmp_path, "return r - beta * np.log(p / p_ref)", "return r - beta * np.log(p / p_ref) * np.nan")
    assert_only(grade_checks(root, course, CHEAP), "D.kl_penalty", "expected finite numbers, found NaN")


def test_a_wrong_shape_says_which_shape_was_expected(tmp_path, course):
    root = broken(tmp_path, "return softmax_score(pi_x, ys).T @ np.where(clipped, 0.0, rho * A) / len(ys)",
                  "return (softmax_score(pi_x, ys).T @ np.where(clipped, 0.0, rho * A) / len(ys))[:3]")
    assert_only(grade_checks(root, course, CHEAP), "D.clip_gradient", "expected shape (9,)",
                "found an array of shape (3,)")


def test_a_function_that_never_returns_times_out_alone(tmp_path, course):
    quick = course.model_copy(update={"limits": Limits(wall_seconds=4, memory_mb=1024)})
    root = broken(tmp_path, PRICE_BODY, "    while True:\n        pass\n")
    assert_only(grade_checks(root, quick, CHEAP), "D.price_exploit", "did not finish within 4 s")


@pytest.mark.parametrize("exit_call, phrase", [("sys.exit(0)", "called sys.exit(0)"),
                                               ("os._exit(0)", "exited with code 0 before the check finished")])
def test_exiting_the_interpreter_costs_only_that_check(tmp_path, course, exit_call, phrase):
    root = broken(tmp_path, PRICE_BODY, f"    import os, sys\n    {exit_call}\n")
    assert_only(grade_checks(root, course, CHEAP), "D.price_exploit", phrase)


def test_a_memory_bomb_is_stopped_by_the_limit(tmp_path, course):
    root = broken(tmp_path, PRICE_BODY, "    hoard = np.ones(10**11)\n")
    assert_only(grade_checks(root, course, CHEAP), "D.price_exploit", "ran out of memory (limit 1024 MB)")


def test_a_missing_project_folder_is_reported_not_raised(tmp_path, course):
    (tmp_path / "D_grpo").mkdir()
    results = grade_checks(tmp_path, course, CHEAP)
    assert all(r["score"] == 0 and "expected D_grpo/grpo.py, found no such file" in r["message"]
               for r in results.values())


def test_a_failure_while_judging_costs_that_check_only(tmp_path, course, monkeypatch):
    from autograder.projects import PROJECTS

    def broken_judge(data, ctx):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(PROJECTS["D"].checks["D.kl_penalty"], "judge", broken_judge)
    results = grade_checks(write_submission(tmp_path, REFERENCE), course, CHEAP)
    assert_only(results, "D.kl_penalty", "the grader itself failed on this check", "ZeroDivisionError")


def test_an_output_flood_is_stopped_at_the_limit(tmp_path, course):
    small = course.model_copy(update={"limits": Limits(wall_seconds=30, memory_mb=1024, output_mb=1)})
    root = broken(tmp_path, PRICE_BODY, "    for _ in range(50):\n        print('x' * 100_000)\n")
    assert_only(grade_checks(root, small, CHEAP), "D.price_exploit", "wrote more output than the grader allows")
