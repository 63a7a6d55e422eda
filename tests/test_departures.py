"""A row that builds on another leads with the verdict and the next step; runs that left the reference's updates are
said once, however many seeds and settings; no clause names an index a student cannot use."""

import json

from autograder.departures import SAW, clause as said, departed_message, departure, seen, with_failing_pieces
from autograder.projects._shared.replay import Departed
from autograder.report.model import CheckResult

VERDICT, STEP = "Not credited: training with your pieces left the reference's updates.", "Look again."
BUILDS_ON = {"A.bar": ("A.gae", "A.batch", "A.update"), "C.diagnose_rules": ("C.fresh_runs",)}


def departed(update: int, gap: float = 0.191, index: int = 2133, what: str = "parameters") -> dict:
    return departure(Departed(update, gap, index, what), 60, 1e-5, 1e-3)


def clause(update: int, gap: float = 0.191, index: int = 2133, what: str = "parameters") -> str:
    return said(departed(update, gap, index, what))


def test_a_departure_is_plain_data_that_crosses_a_process_as_it_is():
    found = departed(21)
    assert found["update"] == 21 and found["of"] == 60 and json.loads(json.dumps(found)) == found


def row(cid: str, passed: bool, message: str = "m", score: float = 0.0, details: dict | None = None) -> CheckResult:
    return CheckResult(cid, cid, score if not passed else 1.0, 1.0, passed, message, details or {})


def test_a_clause_names_the_update_and_the_gap_never_a_flat_index():
    for what in ("parameters", "moments", "actions"):
        said = clause(21, what=what)
        assert said.startswith("at update 21 of 60, ") and "2133" not in said, said
    assert "0.191 away" in clause(21) and "tolerance 1e-05" in clause(21)


def test_runs_that_left_at_one_update_are_said_once():
    failures = [(f"the run of seed {seed}", departed(21, gap)) for seed, gap in ((7, 0.191), (8, 0.2), (9, 0.3))]
    said = seen(failures, 3)
    assert said == (f"{SAW}all 3 runs left the reference's updates at update 21 of 60; in the run of seed 7, your "
                    "parameters were 0.191 away from the reference's update (tolerance 1e-05).")
    assert said.count("away from") == 1 and "seed 8" not in said


def test_runs_that_left_at_different_updates_name_each_update_once():
    failures = [("the run of seed 7", departed(21)), ("the run of seed 9", departed(18))]
    said = seen(failures, 3)
    assert said.startswith(f"{SAW}2 of 3 runs left the reference's updates. In the run of seed 7, at update 21 of 60")
    assert said.endswith("the others left at update 18.") and said.count("away from") == 1
    assert seen([("the run of seed 7", departed(4))], 1) == f"{SAW}{clause(4)}."


def departed_bar() -> CheckResult:
    message = departed_message(VERDICT, STEP, [("the run of seed 7", departed(21))], 3)
    return row("A.bar", False, message, details={"departed": [21, None, None]})


def test_a_departed_row_on_a_failing_piece_leads_with_that_piece_and_keeps_what_was_seen():
    entries = [row("A.gae", False), row("A.batch", True), departed_bar()]
    with_failing_pieces(entries, BUILDS_ON)
    message = entries[-1].message
    assert message.startswith("Not credited: these runs are made by your pieces, and A.gae fails its check. Fix A.gae "
                              "first. What the grader saw: 1 of 3 runs left"), message
    assert VERDICT not in message and STEP not in message and len(message) <= 300


def test_a_departed_row_whose_pieces_pass_keeps_its_own_verdict_and_step():
    entries = [row("A.gae", True), row("A.batch", True), departed_bar()]
    before = entries[-1].message
    with_failing_pieces(entries, BUILDS_ON)
    assert entries[-1].message == before and before.startswith(f"{VERDICT} {STEP} {SAW}")


def test_any_other_failing_row_on_failing_pieces_is_led_by_them_and_says_the_rest_whole():
    rules = row("C.diagnose_rules", False, "boundary_kl was labelled healthy, not unstable", score=0.5)
    entries = [row("C.fresh_runs", False), rules]
    with_failing_pieces(entries, BUILDS_ON)
    assert rules.message == ("Partly credited: this row builds on C.fresh_runs, which fails its check. Fix "
                             f"C.fresh_runs first. {SAW}boundary_kl was labelled healthy, not unstable")
    two = [row("A.gae", False), row("A.batch", False), row("A.bar", False, "median return should be above 450")]
    with_failing_pieces(two, BUILDS_ON)
    assert two[-1].message.startswith("Not credited: this row builds on A.gae and A.batch, which fail their checks. "
                                      "Fix A.gae and A.batch first.")


def test_a_first_failure_too_long_to_follow_the_lead_keeps_what_was_wrong_and_drops_its_reasons():
    """A failing C.diagnose_rules row led by C.fresh_runs: its first log's lesson would take the message past a
    failing row's length, so the lead keeps what was labelled how, then says that more was left out."""
    from capstone_check.verdict import LONGEST

    lesson = "an update's TD errors are measured against that update's own Q-values, not against the log's first " \
             "and last, whatever the rest of the log shows about its loud first third and its quiet late half"
    first = "a small buffer whose first and last Q-values are far larger was labelled healthy, not small_replay_buffer"
    rules = row("C.diagnose_rules", False, f"{first}: {lesson}; a healthy DQN with a loud first third was labelled "
                "small_replay_buffer, not healthy: a DQN's first updates are loud while it learns")
    with_failing_pieces([row("C.fresh_runs", False), rules], BUILDS_ON)
    assert rules.message.endswith(f"{SAW}{first}; and more") and len(rules.message) <= LONGEST, rules.message
    counted = row("C.diagnose_rules", False, f"{first}: {lesson}; and 1 more failing case")
    with_failing_pieces([row("C.fresh_runs", False), counted], BUILDS_ON)
    assert counted.message.endswith(f"{SAW}{first}; and 1 more failing case"), counted.message


def test_passing_rows_and_rows_that_got_no_verdict_are_left_as_they_are():
    crashed = row("A.bar", False, "your code failed", details={"status": "student_error"})
    entries = [row("A.gae", False), crashed, row("C.diagnose_rules", True, "all right")]
    with_failing_pieces(entries, BUILDS_ON)
    assert crashed.message == "your code failed" and entries[-1].message == "all right"


def test_the_students_checker_leads_a_row_as_final_grading_does():
    """The checker's table leads a failing row with the failing rows its kit entry names (``led_by``), by the same
    function final grading leads it with: the same message, and none for a passing row or where the row it builds on
    passes or was not run."""
    from capstone_check.cli import row_message
    from capstone_check.runner import Row

    evidence = "a healthy DQN with a loud first third was labelled small_replay_buffer, not healthy: a DQN's first " \
               "updates are loud while it learns"
    graded = [row("C.fresh_runs", False), row("C.diagnose_rules", False, evidence)]
    with_failing_pieces(graded, BUILDS_ON)
    spec = {"led_by": ["C.fresh_runs"]}
    rules = Row("C.diagnose_rules", "rules", 2, 0, False, evidence, 1.0)
    fresh = Row("C.fresh_runs", "fresh", 4, 3, False, "1 run labelled wrong", 1.0)
    assert row_message(rules, spec, {"C.fresh_runs": fresh, "C.diagnose_rules": rules}) == graded[-1].message
    fine = Row("C.fresh_runs", "fresh", 4, 4, True, "all right", 1.0)
    assert row_message(rules, spec, {"C.fresh_runs": fine, "C.diagnose_rules": rules}) == evidence
    assert row_message(rules, spec, {"C.diagnose_rules": rules}) == evidence
    passed = Row("C.diagnose_rules", "rules", 2, 2, True, "all 9 logs right", 1.0)
    assert row_message(passed, spec, {"C.fresh_runs": fresh}) == "all 9 logs right"
