"""Project B end to end: the reference earns every point, stubs none, the defaults are Project A bit for bit, every
switch is visible on the grader's fixed inputs, and the ablation's bar is judged on the grader's own re-run."""

import json

import numpy as np
import pytest
import yaml

from autograder import paths
from autograder.comparisons import all_close
from autograder.cli import main
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects.b_ablations import catalogue, oracle, switches
from autograder.projects.b_ablations.public.settings import STATISTICS, outputs_compared
from tests.support.grading import (copy_reference, grade_checks, grade_in_a_fresh_process, mutate, without_timing,
                                   write_submission)
from tests.support.imports import forgotten_after

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

FOLDER = paths.SOLUTIONS / "B_ablations"


@pytest.fixture(scope="module")
def reference_report(graded_reference):
    return graded_reference("B")


def test_the_reference_earns_full_marks(reference_report):
    checks = reference_report["projects"]["B"]["checks"]
    assert [(c["id"], c["message"]) for c in checks if not c["passed"]] == []
    bar = next(c for c in checks if c["id"] == "B.bar")
    assert bar["details"]["named"] == ["multiple_epochs"] and bar["details"]["factors"]["multiple_epochs"]["matters"]
    ablated = json.loads((FOLDER / "results.json").read_text())["scores"]
    assert set(bar["details"]["scores"]) == set(ablated)


def test_the_table_check_runs_on_the_public_seeds_whatever_is_graded(reference_report, course):
    table = next(c for c in reference_report["projects"]["B"]["checks"] if c["id"] == "B.table")
    assert f"seeds {course.seeds.public}" in table["message"]


def test_pristine_stubs_score_zero_with_not_implemented_messages(tmp_path):
    out = tmp_path / "r.json"
    assert main(["grade", str(paths.ASSIGNMENTS), "--projects", "B", "--seeds", "public", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["score"] == 0
    for check in report["projects"]["B"]["checks"]:
        assert "not implemented" in check["message"] or "expected results.json" in check["message"], check


def test_the_defaults_train_exactly_as_project_a():
    from capstone_check.student import Student
    from rlkit.cartpole import make_envs

    with forgotten_after(["ppo", "details"]):
        reference = Student(FOLDER, ("ppo", "details"))
        ppo, details = reference.module("ppo"), reference.module("details")
        a, log_a = ppo.train(make_envs(8), 4, 16, seed=3)
        b, log_b = details.train(make_envs(8), 4, 16, seed=3)
    assert log_a == log_b
    for x, y in zip(ppo.flatten([a["actor"], a["critic"]]), ppo.flatten([b["actor"], b["critic"]])):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("name", list(oracle.DETAILS))
def test_every_switch_changes_exactly_one_of_the_graders_fixed_outputs(name):
    run = switches.oracle_run(5)
    base, flipped = switches.outputs(5, oracle.flipped(None), run), switches.outputs(5, oracle.flipped(name), run)
    changed = [kind for kind in outputs_compared(base) if not all_close(flipped[kind], base[kind], 1e-12)]
    assert changed == [{"init_agent": "init", "make_optimizer": "optimizer", "learning_rate": "learning_rate",
                        "advantages_and_returns": "advantages", "ppo_update": "update"}[catalogue.WHERE[name]]]
    # what ppo_update returns is part of its output: a switch acting elsewhere leaves it as it was, to the bit
    assert (flipped[STATISTICS] != base[STATISTICS]) == (changed == ["update"])


def test_ablating_fewer_than_five_details_is_explained(tmp_path, course):
    root = copy_reference(tmp_path, "B_ablations")
    source = (FOLDER / "ablation.py").read_text()
    write_submission(root, mutate(source, '"anneal_lr", "multiple_epochs")', '"multiple_epochs")'), "B_ablations",
                     "ablation.py")
    result = grade_checks(root, course, ["B.bar"])["B.bar"]
    assert result["score"] == 0 and "should name 5 different details, it names 4" in result["message"]


def test_a_missing_project_a_module_is_named(tmp_path, course):
    root = copy_reference(tmp_path, "B_ablations")
    (root / "B_ablations" / "ppo.py").unlink()
    result = grade_checks(root, course, ["B.summary"])["B.summary"]
    assert result["score"] == 0 and "ppo.py" in result["message"]


def test_grading_twice_in_fresh_processes_gives_the_same_report(tmp_path):
    """Every check of B, B.bar's re-run cut to 8 updates of 16 environments to keep the suite lean (the reference's
    full grading is the fixture above): the same report in this process and in a new one."""
    data = yaml.safe_load(paths.COURSE_FILE.read_text())
    data["projects"]["B"]["checks"]["B.bar"]["bar"].update(n_updates=8, num_envs=16)
    course_file = tmp_path / "course.yml"
    course_file.write_text(yaml.safe_dump(data))
    here = grade(paths.SOLUTIONS, load_course(course_file, private=False), seed_set="grading", projects=["B"])
    again = grade_in_a_fresh_process(["B"], course_file=course_file)
    assert json.dumps(without_timing(again), sort_keys=True) == json.dumps(without_timing(here.report.to_json()),
                                                                           sort_keys=True)
    checks = {c["id"]: c for c in again["projects"]["B"]["checks"]}
    assert set(checks) == {"B.defaults", "B.switches", "B.summary", "B.table", "B.bar"}
    assert checks["B.bar"]["details"]["scores"]  # judged on the re-run's replayed episodes, not refused


def test_the_reference_carries_no_finding(reference_report):
    """A known mistake is named only where a check fails: the reference, on the grading seeds, carries none."""
    assert not [c["id"] for c in reference_report["projects"]["B"]["checks"] if "findings" in c]
