"""C.own_labels predicted from how `diagnose` labels each fault on the public fresh runs (``prediction.kind_bounds``):
the student's logs hold one of each fault, so while `my_labels` is `diagnose`, a fault labelled right on every public
run earns its point, one labelled wrong on every run does not, one labelled both ways may go either way; and a probe
that ends in the student's error predicts 0, since final grading makes the same call."""

from __future__ import annotations

import pytest

from capstone_check.cli import row_line
from autograder.projects.c_diagnosis.public.diagnose import labelled_by_kind
from capstone_check.prediction import ceiling, predicted, recognised, said
from capstone_check.runner import FINAL_ONLY, Row
from capstone_check.verdict import RECOGNISED

FAULTS = ["saturated_policy", "untrained_critic", "small_replay_buffer"]
SPEC = {"adds": "left to final grading: predicted from how many of them `my_labels` names as your `diagnose` does",
        "builds_on": (), "credit": "per_case", "trusts": ("C.fresh_runs",), "one_of_each": FAULTS,
        "unsure": ", so `my_labels` agreeing with your `diagnose` shows nothing"}


def rows(by_kind: dict | None, agree: float = 1.0, fresh_passes: bool = False, raised: bool = False) -> dict:
    fresh = Row("C.fresh_runs", "fresh", 4, 4 if fresh_passes else 3, fresh_passes, "m", 1.0, by_kind=by_kind)
    own = Row("C.own_labels", "own", 3, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=agree,
              evidence="`my_labels` names 3 of your 3 logs as your `diagnose` does", raised=raised)
    return {"C.fresh_runs": fresh, "C.own_labels": own}


def bounds(found: dict) -> tuple:
    return predicted(found["C.own_labels"], SPEC, found), ceiling(found["C.own_labels"], SPEC, found)


@pytest.mark.parametrize("statuses, expected", [
    ({"saturated_policy": [0, 6], "untrained_critic": [6, 6], "small_replay_buffer": [6, 6], "healthy": [6, 6]},
     (2, 2)),
    ({"saturated_policy": [6, 6], "untrained_critic": [6, 6], "small_replay_buffer": [6, 6], "healthy": [0, 6]},
     (3, 3)),  # a healthy run labelled a fault: the student's logs hold none
    ({"saturated_policy": [4, 6], "untrained_critic": [6, 6], "small_replay_buffer": [0, 6]}, (1, 2)),
    ({"saturated_policy": [0, 6], "untrained_critic": [0, 6], "small_replay_buffer": [0, 6]}, (0, 0)),
])
def test_each_fault_counts_as_the_public_runs_of_it_went(statuses, expected):
    assert bounds(rows(statuses)) == expected


def test_the_line_says_which_faults_went_which_way():
    found = rows({"saturated_policy": [1, 6], "untrained_critic": [6, 6], "small_replay_buffer": [0, 6]})
    assert said(found["C.own_labels"], SPEC, found).endswith(
        "(predicted 1/3, or up to 2: C.fresh_runs fails here, and your `diagnose` is right on every public run of "
        "untrained critic, wrong on every one of small replay buffer and both ways on saturated policy; your logs "
        "hold one of each fault)")


def test_labels_not_all_diagnose_or_a_row_that_does_not_tell_keep_the_whole_range():
    assert bounds(rows({kind: [6, 6] for kind in FAULTS}, agree=2 / 3)) == (0, 3)
    assert bounds(rows(None)) == (0, 3)


def test_a_passing_row_leaves_the_agreement_as_the_prediction():
    assert bounds(rows({kind: [6, 6] for kind in FAULTS}, fresh_passes=True)) == (3, 3)


def test_a_probe_that_raised_predicts_nothing_whatever_it_trusts():
    found = rows(None, agree=0.0, raised=True)
    found["C.own_labels"].evidence = "your code raised TypeError: bad operand"
    assert bounds(found) == (0, 0)
    assert row_line(found["C.own_labels"], SPEC, found).endswith(
        "your code raised TypeError: bad operand (predicted 0/3: final grading makes the same call)")


def test_the_fresh_runs_count_each_label_right_of_how_many():
    truths = ["saturated_policy", "saturated_policy", "untrained_critic", "healthy", "untrained_critic"]
    labels = ["saturated_policy", "healthy", "healthy", "healthy", "healthy"]
    assert labelled_by_kind(truths, labels) == {"saturated_policy": [1, 2], "untrained_critic": [0, 2],
                                                "healthy": [1, 1]}


def graded(truth: list[tuple], labels: list[str]) -> list:
    """Graded runs as the fresh runs' judge pairs them: (kind, label)."""
    return list(zip(truth, labels))


def test_a_kind_of_run_labelled_both_ways_over_the_seeds_opens_the_fresh_runs_row():
    """Saturated runs of severity 1 right on two seeds and wrong on the third: final grading's seeds may see them
    either way, so the row is predicted from all three counted wrong to all three counted right."""
    from autograder.projects.c_diagnosis.public.diagnose import seeds_apart, spread_note

    truth = [("saturated_policy", 1)] * 3 + [("healthy", 1)] * 3
    labels = graded(truth, ["saturated_policy", "healthy", "saturated_policy", "healthy", "healthy", "healthy"])
    assert seeds_apart(labels) == [3 / 6, 6 / 6]
    assert spread_note(4, [3 / 6, 1.0]).startswith("Predicted 2/4, or up to 4: your `diagnose` labels some kind")
    assert seeds_apart(graded(truth, ["healthy"] * 6)) is None  # one kind wrong on every seed: the share here is the
    # prediction
    fresh = Row("C.fresh_runs", "fresh", 4, 3.33, False, "m", 1.0, spread=[0.5, 1.0])
    assert (predicted(fresh, {}, {}), ceiling(fresh, {}, {})) == (2, 4)


def test_a_fresh_runs_row_opened_both_ways_for_many_kinds_stays_within_a_failing_rows_length():
    from autograder.projects.c_diagnosis.public.diagnose import seeds_apart, spread_note
    from capstone_check.verdict import LONGEST, failing_message

    kinds = [(label, severity) for label in ("saturated_policy", "untrained_critic", "small_replay_buffer", "healthy")
             for severity in (1, 2)]
    truth = [kind for kind in kinds for _ in range(3)]
    labels = [label for label, _ in truth]
    for run in range(0, len(labels), 3):  # every kind right on two seeds, wrong on one
        labels[run] = "healthy" if truth[run][0] != "healthy" else "saturated_policy"
    spread = seeds_apart(graded(truth, labels))
    note = spread_note(4, spread)
    assert spread == [0, 1] and note.startswith("Predicted 0/4, or up to 4: your `diagnose` labels some kind of run "
                                                "right on one public seed and wrong on another")
    message = failing_message(["1 saturated policy run (severity 1) labelled healthy"], note)
    assert len(message) <= LONGEST and message.endswith("labelled healthy"), message


def test_the_mistakes_a_prediction_names_travel_beside_the_evidence_never_read_back_from_its_text():
    row = Row("C.fresh_runs", "fresh runs", 4.0, 0.0, False, FINAL_ONLY, 0.1, final_only=True,
              foreseen=0.5, evidence=f"2 healthy runs labelled saturated_policy; {RECOGNISED}a sentence in the text",
              named=["the sentence the child handed back"])
    assert recognised(row) == f"; {RECOGNISED}the sentence the child handed back"
    assert recognised(Row("C.fresh_runs", "fresh runs", 4.0, 0.0, False, "", 0.1)) == ""
