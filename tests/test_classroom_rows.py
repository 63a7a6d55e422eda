"""grade-all's rows hold what happened as data (a state, problems, a reason) and say it in the words grades.csv has
always used; the closing count reads the data, never the words."""

import pytest

from autograder.classroom.rows import Problem, Row, graded_row, problems_in
from autograder.report.model import CheckResult, ProjectResult, Report, not_run
from autograder.status import Status


def check(cid: str, details: dict | None = None) -> CheckResult:
    return CheckResult(cid, "a check", 0.0 if details else 1.0, 1.0, not details, "m", details or {}, 0.1)


def report(**projects: list[CheckResult]) -> Report:
    return Report("sub", "public", {pid: ProjectResult(checks) for pid, checks in projects.items()})


SLOW = report(D=[check("D.weights"), check("D.k_sweep", not_run(Status.TIMEOUT))])
BROKEN = report(A=[check("A.gae", not_run(Status.STUDENT_ERROR, "syntax")),
                   check("A.bar", not_run(Status.STUDENT_ERROR, "syntax"))],
                D=[check("D.weights", not_run(Status.MEMORY)), check("D.beta_sweep", not_run(Status.TIMEOUT))])


def test_problems_are_found_worst_first_and_a_failed_import_names_its_project_once():
    assert problems_in(BROKEN) == [Problem("does not compile", ("A",)), Problem("timed out", ("D.beta_sweep",)),
                                   Problem("crashed", ("D.weights",))]
    assert problems_in(report(D=[check("D.weights")])) == []


ROWS = [
    (graded_row("ada", "graded", report(D=[check("D.weights")])), "graded", "graded"),
    (graded_row("ben", "regraded", SLOW), "timed out: D.k_sweep", "timed out"),
    (graded_row("cy", "graded", BROKEN), "does not compile: A; timed out: D.beta_sweep; crashed: D.weights",
     "does not compile"),
    (graded_row("dee", "unchanged", SLOW), "unchanged (timed out: D.k_sweep)", "unchanged"),
    (graded_row("eve", "unchanged", report(D=[check("D.weights")])), "unchanged", "unchanged"),
    (Row("fay", "no submission", reason="expected D_grpo/; found notes.txt"),
     "no submission (expected D_grpo/; found notes.txt)", "no submission"),
    (Row("gus", "error", reason="KeyError: 'x' (grade)"), "error: KeyError: 'x' (grade)", "error"),
    (Row("hal", "crashed", reason="its grading took down a worker 4 times"),
     "crashed: its grading took down a worker 4 times", "crashed"),
]


@pytest.mark.parametrize("row, said, counted", ROWS, ids=[row.student for row, _, _ in ROWS])
def test_a_row_says_what_happened_and_is_counted_by_its_data(row, said, counted):
    assert row.status == said
    assert row.headline == counted == said.split(":")[0].split(" (")[0]  # what the words used to be parsed into
