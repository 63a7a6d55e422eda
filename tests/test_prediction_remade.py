"""A training bar predicted from the reference's own runs (``capstone_check.prediction``): where the student's pieces
remake them, the row is predicted as it scored here whatever piece checks fail; where they do not, 0, led by what to
fix; where the kit cannot tell, the range it gave before."""

from __future__ import annotations

from capstone_check.cli import row_line
from capstone_check.prediction import ceiling, predicted, said
from capstone_check.runner import Row

SPEC = {"adds": "final grading also replays each run update by update and credits it only if every update follows "
                "from pieces that pass", "builds_on": ("A.gae", "A.update"), "trusts": ("A.clip",),
        "unsure": ", and this run cannot tell whether your training reaches what fails",
        "reference_runs": {"updates": list(range(0, 60, 6))}}
DEPARTED = {"seed": 8, "update": 3, "what": "parameters", "gap": 0.0123}


def rows(remade, gae: bool = True, clip: bool = True, score: float = 6) -> dict[str, Row]:
    return {"A.gae": Row("A.gae", "gae", 3, 3 * gae, gae, "m", 1.0),
            "A.update": Row("A.update", "update", 3, 3, True, "m", 1.0),
            "A.clip": Row("A.clip", "clip", 3, 3 * clip, clip, "m", 1.0),
            "A.bar": Row("A.bar", "bar", 6, score, score == 6, "median return 500", 9.0, remade=remade)}


def both(found: dict) -> tuple:
    return predicted(found["A.bar"], SPEC, found), ceiling(found["A.bar"], SPEC, found)


def test_pieces_that_remake_the_reference_runs_predict_the_score_here_though_a_piece_check_fails():
    found = rows({}, gae=False, clip=False)
    assert both(found) == (6, 6)
    assert said(found["A.bar"], SPEC, found).endswith(
        "your pieces make 10 updates of each of the reference's runs on the public seeds as it did: A.gae and "
        "A.clip fail here only in cases those updates never meet (predicted 6/6)")
    found = rows({}, score=2)
    assert both(found) == (2, 2)


def test_pieces_that_do_not_remake_them_predict_nothing_and_lead_with_the_fix():
    found = rows(DEPARTED, clip=False)
    assert both(found) == (0, 0)
    line = row_line(found["A.bar"], SPEC, found)
    assert ("Predicted 0/6: Fix A.clip first; your pieces do not make update 3 of the reference's run of seed 8 as "
            "it did (parameters 0.012 away). Why: final grading also replays") in line, line
    assert line.index("Fix A.clip") < line.index("median return 500")


def test_a_departure_no_check_shows_says_where_to_look():
    found = rows(DEPARTED)
    assert both(found) == (0, 0)
    assert said(found["A.bar"], SPEC, found).startswith(
        "Predicted 0/6: Look for the difference in what training calls: gae, flatten_batch, ppo_update and the pieces "
        "it uses; no check above shows it, but training reaches it; your pieces do not make update 3")


def test_without_the_reference_runs_the_row_keeps_its_range():
    found = rows(None, clip=False)
    assert both(found) == (0, 6)
    assert "Predicted 0/6, or up to 6: A.clip fails here" in said(found["A.bar"], SPEC, found)
    found = rows(None, gae=False)
    assert both(found) == (0, 6)
