"""Project Z end to end: the reference earns every point on the grading seeds, and the released stub earns none."""

from autograder import paths
from tests.support.grading import grade_checks


def test_the_reference_earns_every_point_on_the_grading_seeds(course):
    results = grade_checks(paths.SOLUTIONS, course, checks=list(course.projects["Z"].checks), seed_set="grading")
    assert all(r["passed"] for r in results.values()), [r["message"] for r in results.values()]


def test_the_released_stub_earns_nothing(course):
    for result in grade_checks(paths.ASSIGNMENTS, course, checks=list(course.projects["Z"].checks)).values():
        assert result["score"] == 0 and "not implemented" in result["message"], result
