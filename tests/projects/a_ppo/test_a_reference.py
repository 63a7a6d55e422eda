"""Project A end to end: the reference earns every point, stubs none, and the bar cannot be bought with samples."""

import json

import pytest

from autograder import paths
from autograder.cli import main
from autograder.projects import PROJECTS
from tests.support.grading import (grade_checks, graded_here_and_in_a_fresh_process, lean_course_file, mutate,
                                   write_submission)

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
FIND_ENVS = ("    import gc\n    from autograder.projects._shared.ppo.recording import BudgetedEnvs\n"
             "    envs = next(o for o in gc.get_objects() if isinstance(o, BudgetedEnvs))\n")


@pytest.fixture(scope="module")
def reference_report(graded_reference):
    return graded_reference("A")


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


def test_stepping_the_environments_past_the_budget_is_refused(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, '    B = len(batch["actions"])\n',
                                             '    B = len(batch["actions"])\n' + FIND_ENVS
                                             + "    envs.step(np.zeros(envs.num_envs, dtype=int))\n"),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0 and "more than the budget of 1920 vector steps" in result["message"]


def test_making_a_private_environment_inside_a_piece_is_refused(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, '    B = len(batch["actions"])\n',
                                             "    import gymnasium\n    gymnasium.make_vec('CartPole-v1', num_envs=8)\n"
                                             '    B = len(batch["actions"])\n'),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0 and "only from the environments it is given" in result["message"]


def test_an_agent_cut_short_by_the_update_is_refused(tmp_path, course):
    root = write_submission(tmp_path, mutate(REFERENCE, '    B = len(batch["actions"])\n',
                                             '    agent["actor"] = agent["actor"][:1]\n'
                                             '    B = len(batch["actions"])\n'),
                            "A_ppo", "ppo.py")
    result = grade_checks(root, course, ["A.bar"])["A.bar"]
    assert result["score"] == 0, result


def test_grading_twice_in_fresh_processes_gives_the_same_report(tmp_path):
    """Every check of A, A.bar's runs cut to 8 updates of 16 environments to keep the suite lean (the reference's full
    grading is the fixture above): the same report in this process and in a new one."""
    here, again = graded_here_and_in_a_fresh_process("A", lean_course_file(tmp_path, {"A.bar": {"n_updates": 8,
                                                                                                "num_envs": 16}}))
    assert json.dumps(again, sort_keys=True) == json.dumps(here, sort_keys=True)
    checks = {c["id"]: c for c in again["projects"]["A"]["checks"]}
    assert set(checks) == set(PROJECTS["A"].checks)
    assert len(checks["A.bar"]["details"]["curves"]) == 3  # judged on the replayed runs of every seed, not refused


def test_the_reference_carries_no_finding(reference_report):
    """A known mistake is named only where a check fails: the reference, on the grading seeds, carries none."""
    assert not [c["id"] for c in reference_report["projects"]["A"]["checks"] if "findings" in c]
