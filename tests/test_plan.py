"""The plan: each check's bar is validated by one function (``checks.validated_bar``) and its context is built once;
the child gets it as plain data and rebuilds the same context."""

import json
from dataclasses import replace

import pytest

from autograder import paths
from autograder.checks import Context
from autograder.checks import BarError, validated_bar
from autograder.loader import load_course
from autograder.plan import plan, planned
from autograder.projects import PROJECTS


@pytest.fixture(scope="module")
def course():
    return load_course(paths.COURSE_FILE, private=False)


def test_a_bad_bar_is_rejected_naming_the_key(course):
    check = PROJECTS["D"].checks["D.k_sweep"]
    bar = {**course.projects["D"].checks["D.k_sweep"].bar, "budgett": 1}
    bar.pop("budget")
    with pytest.raises(BarError) as caught:
        validated_bar(check, bar, "projects.D.checks.D.k_sweep")
    assert caught.value.problems == ["projects.D.checks.D.k_sweep.bar.budget: required key is missing",
                                     "projects.D.checks.D.k_sweep.bar.budgett: unknown key"]


def test_the_child_rebuilds_the_context_through_the_same_validation(course):
    item = planned(course, "D", "D.k_sweep", "public")
    plain = json.loads(json.dumps(item.context.plain()))  # as the request file carries it
    assert Context.from_plain(item.check, plain) == Context(item.seeds, "public", item.context.bar)
    with pytest.raises(BarError, match=r"D\.k_sweep\.bar\.budgett: unknown key"):
        Context.from_plain(item.check, {**plain, "bar": {**plain["bar"], "budgett": 1}})


def test_the_request_holds_plain_data_and_never_the_student_or_the_secret(course):
    secret = course.model_copy(update={"secret": "s3cr3t"})
    item = planned(secret, "C", "C.own_labels", "grading", folder=paths.SOLUTIONS / "C_diagnosis", student="ada")
    assert (item.context.student, item.context.secret) == ("ada", "s3cr3t")
    request = item.request(item.context_for(item.shards()[0]))
    assert json.loads(json.dumps(request)) == request
    assert "ada" not in json.dumps(request) and "s3cr3t" not in json.dumps(request)


def test_only_a_project_that_judges_by_the_student_is_told_who_they_are(course):
    secret = course.model_copy(update={"secret": "s3cr3t"})
    item = planned(secret, "D", "D.k_sweep", "grading", folder=paths.SOLUTIONS / "D_grpo", student="ada")
    assert (item.context.student, item.context.secret) == (None, None)


def test_a_per_seed_check_gets_one_child_per_seed_in_sorted_order(course):
    item = planned(course, "A", "A.bar", "public")
    assert item.check.per_seed and item.shards() == [(seed,) for seed in sorted(course.seeds.public)]


def test_fixed_seed_checks_keep_the_public_seeds_when_grading(course):
    fixed = [(pid, cid) for pid, p in PROJECTS.items() for cid, c in p.checks.items() if c.fixed_seeds == "public"]
    for pid, cid in fixed:
        assert planned(course, pid, cid, "grading").context.seed_set == "public"


def test_the_plan_follows_the_course_order_and_filters(course):
    everything = plan(paths.SOLUTIONS, course, "public")
    assert [(i.project, i.check_id) for i in everything] == [
        (pid, cid) for pid, p in course.projects.items() for cid in p.checks]
    only = plan(paths.SOLUTIONS, course, "public", projects=["D"], checks=["D.weights"])
    assert [(i.project, i.check_id, i.folder) for i in only] == [("D", "D.weights", paths.SOLUTIONS / "D_grpo")]


def test_a_check_prepared_ahead_of_grading_gets_the_context_grading_will_give_it(course):
    """prepare_course (Gradescope's setup) plans without a submission; a prepare step must see the very context a
    submission's grading gives it, the secret's sample key included, or every upload trains its inputs again."""
    secret = course.model_copy(update={"secret": "s3cr3t"})
    prepared = [(pid, cid) for pid, p in PROJECTS.items() for cid, c in p.checks.items() if hasattr(c, "prepare")]
    assert ("B", "B.bar") in prepared
    for pid, cid in prepared:
        ahead = planned(secret, pid, cid, "grading")
        graded = planned(secret, pid, cid, "grading", folder=paths.SOLUTIONS / PROJECTS[pid].folder, student="ada")
        who = replace(graded.context_for(graded.shards()[0]), student=None)  # prepare never reads who the student is
        assert ahead.context_for(ahead.shards()[0]) == who, cid
