"""Project D end to end: the reference earns every point on both seed sets, the stubs earn none and do not crash,
the report follows the documented schema, and grading is deterministic."""

import json

import pytest

from autograder import paths
from autograder.cli import main
from autograder.grading import grade
from autograder.projects import PROJECTS
from tests.support.grading import graded_here_and_in_a_fresh_process, lean_course_file

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

CHECK_KEYS = {"id", "name", "score", "max_score", "passed", "outcome", "message", "details", "seconds"}


@pytest.fixture(scope="module")
def reference_report(graded_reference):
    return graded_reference("D")


def test_the_reference_earns_full_marks_on_the_grading_seeds(reference_report):
    failed = [(c["id"], c["message"]) for c in reference_report["projects"]["D"]["checks"] if not c["passed"]]
    assert failed == []
    assert reference_report["score"] == reference_report["max_score"] > 0


def test_the_reference_earns_full_marks_on_the_public_seeds(course):
    report = grade(paths.SOLUTIONS / "D_grpo", course, seed_set="public").report.to_json()
    assert report["score"] == report["max_score"], [c["message"] for c in report["projects"]["D"]["checks"]]


def test_the_report_follows_the_schema(reference_report, course):
    assert set(reference_report) == {"submission", "seeds", "score", "max_score", "projects"}
    assert reference_report["seeds"] == "grading"
    section = reference_report["projects"]["D"]
    assert set(section) == {"score", "max_score", "checks"}
    assert [c["id"] for c in section["checks"]] == list(course.projects["D"].checks)
    for check in section["checks"]:
        assert set(check) == CHECK_KEYS
        assert check["max_score"] == course.projects["D"].checks[check["id"]].points
    json.dumps(reference_report, allow_nan=False)  # strict JSON: no NaN or Infinity anywhere


# D's training checks when grading twice: a tenth of the steps (the reference's full grading is the fixture above)
LEAN_BARS = {"D.chapter_tables": {"budget": 640, "beta_steps": 40}, "D.k_sweep": {"budget": 640},
             "D.beta_sweep": {"steps": 40}}


def test_grading_twice_in_fresh_processes_gives_the_same_report(tmp_path):
    here, again = graded_here_and_in_a_fresh_process("D", lean_course_file(tmp_path, LEAN_BARS))
    assert json.dumps(again, sort_keys=True) == json.dumps(here, sort_keys=True)
    checks = {c["id"]: c for c in again["projects"]["D"]["checks"]}
    assert set(checks) == set(PROJECTS["D"].checks)
    assert all(checks[cid]["details"] for cid in LEAN_BARS)  # the trained policies judged, not refused


def test_pristine_stubs_score_zero_with_not_implemented_messages(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["grade", str(paths.ASSIGNMENTS), "--projects", "D", "--seeds", "public", "--report", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["score"] == 0 and report["max_score"] > 0
    for check in report["projects"]["D"]["checks"]:
        assert "is not implemented yet" in check["message"], check
        assert "Traceback" not in check["message"]
    assert (out / "report.html").read_text().count("is not implemented yet") == len(report["projects"]["D"]["checks"])


def test_the_html_report_embeds_the_figures(tmp_path, reference_report):
    from autograder.report import Report, write_html

    figures = {"D": [("a caption", b"\x89PNG fake")]}
    page = write_html(Report.from_json(reference_report), figures, tmp_path / "r.html", {"D": "GRPO"}).read_text()
    assert "data:image/png;base64," in page and "a caption" in page and "<script" not in page


def test_the_reference_carries_no_finding(reference_report):
    """A known mistake is named only where a check fails: the reference, on the grading seeds, carries none."""
    assert not [c["id"] for c in reference_report["projects"]["D"]["checks"] if "findings" in c]
