"""The typed report: its JSON form is the documented one, a report read back is the same report, and a check's
outcome follows from what it scored and whether it got a verdict."""

import json
from pathlib import Path

import jsonschema
import pytest

from autograder.report.model import CheckResult, ProjectResult, Report, not_run

SCHEMA = json.loads((Path(__file__).parent / "data" / "report.schema.json").read_text())


def check(cid="D.weights", score=1.0, max_score=1.0, details=None, passed=None) -> CheckResult:
    return CheckResult(cid, "a check", score, max_score, score >= max_score if passed is None else passed, "m",
                       {} if details is None else details, 0.25)


def a_report() -> Report:
    return Report("sub", "public", {
        "D": ProjectResult([check(), check("D.kl_penalty", 0.5, 2.0, {"measured": [1.0, float("nan")]})],
                           notes=["left out of the graded copy of D_grpo/: big.bin"]),
        "A": ProjectResult([check("A.gae", 0.0, 3.0, not_run("student_error", "syntax"))]),
    })


@pytest.mark.parametrize("made, outcome", [
    (check(), "passed"),
    (check(score=0.5, max_score=2.0), "partial"),
    (check(score=0.0), "failed"),
    (check(score=0.0, details=not_run("timeout")), "error"),
    (check(score=0.0, details=not_run("malformed")), "error"),
])
def test_the_outcome_follows_from_the_score_and_the_status(made, outcome):
    assert made.outcome == outcome


def test_totals_are_the_rounded_sums_of_the_checks():
    report = a_report()
    assert report.projects["D"].score == 1.5 and report.projects["D"].max_score == 3.0
    assert (report.score, report.max_score) == (1.5, 6.0)
    assert report.project_score("B") == 0.0


def test_json_round_trip_keeps_every_key_in_the_documented_order():
    report = a_report()
    data = json.loads(report.dumps())
    jsonschema.validate(data, SCHEMA)
    assert list(data) == ["submission", "seeds", "score", "max_score", "projects"]
    assert list(data["projects"]["D"]) == ["score", "max_score", "checks", "notes"]
    assert "notes" not in data["projects"]["A"]
    assert [c["outcome"] for c in data["projects"]["D"]["checks"]] == ["passed", "partial"]
    again = Report.from_json(data)
    assert json.loads(again.dumps()) == data
    assert again.projects["A"].checks[0].kind == "syntax"


def test_a_report_written_before_the_outcome_field_reads_back(tmp_path):
    data = json.loads(a_report().dumps())
    for section in data["projects"].values():
        for entry in section["checks"]:
            del entry["outcome"]
    (tmp_path / "report.json").write_text(json.dumps(data))
    assert Report.load(tmp_path / "report.json").projects["A"].checks[0].outcome == "error"


def test_the_schema_lists_every_status_of_a_check_without_a_verdict():
    from autograder.status import Status

    listed = schema_statuses(SCHEMA)
    assert listed == [s.value for s in Status if s is not Status.OK]


def schema_statuses(schema) -> list[str]:
    """The ``status`` enum of the schema's details, wherever it sits."""
    if isinstance(schema, dict):
        if "status" in schema and isinstance(schema["status"], dict) and "enum" in schema["status"]:
            return schema["status"]["enum"]
        values = schema.values()
    elif isinstance(schema, list):
        values = schema
    else:
        return []
    return next((found for value in values if (found := schema_statuses(value))), [])


def test_a_status_reads_back_as_the_same_member_and_writes_as_its_value():
    from autograder.status import Status

    entry = CheckResult.from_json(json.loads(json.dumps(check(score=0.0, details=not_run(Status.TIMEOUT)).to_json())))
    assert entry.status is Status.TIMEOUT and entry.details == {"status": "timeout"}
    assert f"{Status.MEMORY}" == str(Status.MEMORY) == "memory" and json.dumps(Status.CRASHED) == '"crashed"'
