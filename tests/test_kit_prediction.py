"""The students' checker's prediction of final grading (``capstone_check.prediction``, ``capstone_check.cli``): a row
whose credit rests on pieces says which fail here and is predicted 0, a row left to final grading is listed with its
points and predicted whole only when what it builds on passes, and the total says how much is checkable here."""

from __future__ import annotations

from capstone_check.cli import row_line, total_lines
from capstone_check.prediction import predicted, said
from capstone_check.runner import FINAL_ONLY, Row

PIECES = ("A.gae", "A.batch")
SPECS = {"A.gae": {}, "A.batch": {},
         "A.bar": {"adds": "final grading also replays each run and credits it only if every update follows from "
                           "pieces that pass", "builds_on": PIECES},
         "A.own": {"adds": "left to final grading, which needs your id; it credits it only if",
                   "builds_on": PIECES}}


def rows(gae_passes: bool) -> dict[str, Row]:
    return {"A.gae": Row("A.gae", "gae", 3, 3 if gae_passes else 0, gae_passes, "m", 1.0),
            "A.batch": Row("A.batch", "batch", 1, 1, True, "m", 1.0),
            "A.bar": Row("A.bar", "bar", 6, 6, True, "median return 500", 9.0),
            "A.own": Row("A.own", "own", 5, 0, False, FINAL_ONLY, 0.0, final_only=True)}


def test_a_run_that_reaches_the_bar_on_a_failing_piece_is_predicted_zero_and_says_why():
    found = rows(gae_passes=False)
    assert predicted(found["A.bar"], SPECS["A.bar"], found) == 0.0
    line = row_line(found["A.bar"], SPECS["A.bar"], found)
    assert "6/6   pass" in line and "median return 500" in line
    assert "A.gae fails here, so final grading will not credit this (predicted 0/6)" in line
    assert predicted(found["A.own"], SPECS["A.own"], found) == 0.0


def test_when_every_piece_passes_the_run_and_the_final_only_row_are_predicted_whole():
    found = rows(gae_passes=True)
    assert predicted(found["A.bar"], SPECS["A.bar"], found) == 6
    assert predicted(found["A.own"], SPECS["A.own"], found) == 5
    line = row_line(found["A.own"], SPECS["A.own"], found)
    assert "   -/5   ----  left to final grading" in line and "they pass here (predicted 5/5)" in line


def test_the_total_counts_what_is_checkable_here_and_predicts_the_whole():
    found = rows(gae_passes=False)
    first, second = total_lines("A", list(found.values()), SPECS, found)
    assert first == "  A total: 7/10 on the public seeds (10 of 15 points checkable here)."
    assert second.startswith("  Predicted at final grading: 1/15, counting the 5 points of rows marked ----")


def test_a_row_whose_pieces_were_not_run_makes_no_prediction():
    found = {"A.bar": rows(True)["A.bar"]}
    assert predicted(found["A.bar"], SPECS["A.bar"], found) is None
    assert "run every check of A to see whether they do" in said(found["A.bar"], SPECS["A.bar"], found)
    assert len(total_lines("A", [found["A.bar"]], SPECS, found)) == 1


def test_a_row_left_to_final_grading_that_builds_on_nothing_is_predicted_whole_and_says_what_it_assumes():
    spec = {"adds": "left to final grading: predicted whole if your labels are your diagnosis's", "builds_on": ()}
    row = Row("C.own_labels", "own", 3, 0, False, FINAL_ONLY, 0.0, final_only=True)
    assert predicted(row, spec, {}) == 3
    assert row_line(row, spec, {}).endswith("----  left to final grading: predicted whole if your labels are your "
                                            "diagnosis's")
