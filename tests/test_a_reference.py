"""Project A end to end: the reference earns every point, stubs none, and the bar cannot be bought with samples."""

import json

import pytest

from autograder import paths
from autograder.cli import main
from autograder.grading import grade
from conftest import grade_checks, mutate, write_submission

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()


@pytest.fixture(scope="module")
def reference_report(course):
    return grade(paths.SOLUTIONS, course, seed_set="grading", projects=["A"]).report


def test_the_reference_earns_full_marks_on_the_grading_seeds(reference_report):
    failed = [(c["id"], c["message"]) for c in reference_report["projects"]["A"]["checks"] if not c["passed"]]
    assert failed == []
    bar = next(c for c in reference_report["projects"]["A"]["checks"] if c["id"] == "A.bar")
    assert bar["details"]["median"] > 450 and len(bar["details"]["curves"]) == 3


def test_pristine_stubs_score_zero_with_not_implemented_messages(tmp_path):
    out = tmp_path / "r.json"
    assert main(["grade", str(paths.ASSIGNMENTS), "--projects", "A", "--seeds", "public", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["score"] == 0
    assert all("is not implemented yet" in c["message"] for c in report["projects"]["A"]["checks"])


def test_training_past_the_budget_is_refused(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, "for update in range(n_updates):",
                                             "for update in range(n_updates + 1):"), "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0 and "more than the budget of 1920 vector steps" in result["message"]


def test_making_a_private_environment_inside_train_is_refused(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, "    rng = np.random.default_rng(seed)\n    agent = init_agent",
                                             "    import gymnasium\n    gymnasium.make_vec('CartPole-v1', num_envs=8)\n"
                                             "    rng = np.random.default_rng(seed)\n    agent = init_agent"),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0 and "only from the environments it is given" in result["message"]


def test_a_returned_agent_of_the_wrong_shape_is_described(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, "    return agent, log\n", "    return agent['actor'], log\n"),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0 and "agent['actor']" in result["message"]


def test_grading_twice_gives_the_same_report(reference_report, course):
    from test_d_reference import without_timing

    again = grade(paths.SOLUTIONS, course, seed_set="grading", projects=["A"]).report
    assert json.dumps(without_timing(again), sort_keys=True) == json.dumps(without_timing(reference_report),
                                                                           sort_keys=True)
