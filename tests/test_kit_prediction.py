"""The students' checker's prediction of final grading (``capstone_check.prediction``, ``capstone_check.cli``): a row
whose credit rests on pieces says which fail here and is predicted 0, a row left to final grading is listed with its
points and predicted whole only when what it builds on passes, and the total says how much is checkable here."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared.ppo import oracle
from autograder.projects.a_ppo.student_kit import TRAINED, UPDATE_READS
from autograder.projects.a_ppo.update import UPDATE_CONFIG, UPDATE_LR, update_inputs
from autograder.student_kit import build
from capstone_check.cli import row_line, total_lines
from capstone_check.prediction import ceiling, predicted, said
from capstone_check.runner import FINAL_ONLY, Row
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL
from tests.support.student_bundle import kit_line, planted
from rlkit.nn import Adam, flatten

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

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
    assert "6/6   at risk: 0 to 6/6 predicted" in line and "median return 500" in line
    assert ("Predicted 0/6, or up to 6 if the runs final grading checks never reach what fails: this row builds on "
            "A.gae, which fails here. Fix A.gae first.") in line
    assert line.index("Fix A.gae first") < line.index("median return 500")
    assert predicted(found["A.own"], SPECS["A.own"], found) == 0.0


def test_a_row_on_a_failing_piece_may_still_earn_what_it_scored_here_and_no_more():
    """Final grading credits a run whose replay never reaches what fails (a GAE wrong only off the course's config):
    the least is 0, the most the run's score here; a run that missed its bar here may earn nothing more."""
    found = rows(gae_passes=False)
    assert ceiling(found["A.bar"], SPECS["A.bar"], found) == 6
    found["A.bar"] = Row("A.bar", "bar", 6, 0, False, "median return 40", 9.0)
    assert ceiling(found["A.bar"], SPECS["A.bar"], found) == 0
    line = row_line(found["A.bar"], SPECS["A.bar"], found)
    assert "Predicted 0/6: this row builds on A.gae" in line and "or up to" not in line


def test_when_every_piece_passes_the_run_and_the_final_only_row_are_predicted_whole():
    found = rows(gae_passes=True)
    assert predicted(found["A.bar"], SPECS["A.bar"], found) == 6
    assert predicted(found["A.own"], SPECS["A.own"], found) == 5
    line = row_line(found["A.own"], SPECS["A.own"], found)
    assert "   -/5   ----  left to final grading" in line and "they pass here (predicted 5/5)" in line


def test_the_total_counts_what_is_checkable_here_and_predicts_the_whole():
    found = rows(gae_passes=False)
    first, left, third, marked = total_lines("A", list(found.values()), SPECS, found)[:4]
    assert first == "  A total: 7/10 earned here, on the public seeds (10 of 15 points checkable here)."
    assert left == "  Left to final grading: 5 of the 15 points (the rows marked ----, not run here)."
    assert third == ("  Predicted at final grading: 1/15 at least, 12/15 at most (the rows that say \"or up to\" are "
                     "those this run cannot tell).")
    assert marked.startswith("  The prediction counts the 5 points of rows marked ----")
    found = rows(gae_passes=True)
    assert total_lines("A", list(found.values()), SPECS, found)[2] == "  Predicted at final grading: 15/15."


def test_a_row_whose_pieces_were_not_run_makes_no_prediction():
    found = {"A.bar": rows(True)["A.bar"]}
    assert predicted(found["A.bar"], SPECS["A.bar"], found) is None
    assert "run every check of A to see whether they do" in said(found["A.bar"], SPECS["A.bar"], found)
    assert total_lines("A", [found["A.bar"]], SPECS, found)[2] == ("  Predicted at final grading: not known from this "
                                                                   "run; run every check of A to see.")


def test_a_row_left_to_final_grading_that_builds_on_nothing_is_predicted_whole_and_says_what_it_assumes():
    spec = {"adds": "left to final grading: predicted whole if your labels are your diagnosis's", "builds_on": ()}
    row = Row("C.own_labels", "own", 3, 0, False, FINAL_ONLY, 0.0, final_only=True)
    assert predicted(row, spec, {}) == 3
    assert row_line(row, spec, {}).endswith("----  left to final grading: predicted whole if your labels are your "
                                            "diagnosis's (predicted 3/3)")


def test_a_row_left_to_final_grading_is_predicted_from_its_public_evidence_as_its_credit_counts_it():
    """A row left to final grading is predicted as its credit counts its evidence: C.own_labels earns a share per
    log, so a probe's 1 of 3 predicts 1 point of 3; a row all or nothing (as C.diagnose_rules was while it was left to
    final grading) predicts nothing from 7 of 8 logs right. The line quotes the evidence."""
    spec = {"adds": "left to final grading: predicted from", "builds_on": (), "credit": "per_case"}
    row = Row("C.own_labels", "own", 3, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=1 / 3,
              evidence="`my_labels` names 1 of your 3 logs as your `diagnose` does")
    assert predicted(row, spec, {}) == 1
    assert row_line(row, spec, {}).endswith("1 of your 3 logs as your `diagnose` does (predicted 1/3)")
    rules = {"adds": "left to final grading, as checked by", "builds_on": ("C.fresh_runs",),
             "credit": "all_or_nothing"}
    fresh = {"C.fresh_runs": Row("C.fresh_runs", "fresh", 5, 5, True, "all right", 1.0)}
    row = Row("C.diagnose_rules", "rules", 2, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=7 / 8,
              evidence="`diagnose` labels 7 of the public seed's 8 logs built at the README's thresholds right")
    assert predicted(row, rules, fresh) == 0
    assert "it passes here; `diagnose` labels 7 of the public seed's 8" in row_line(row, rules, fresh)
    assert row_line(row, rules, fresh).endswith("(predicted 0/2)")
    lost = {"C.fresh_runs": Row("C.fresh_runs", "fresh", 5, 0, False, "2 runs labelled wrong", 1.0)}
    assert "Predicted 0/2: this row builds on C.fresh_runs, which fails here. Fix C.fresh_runs first." \
        in row_line(row, rules, lost)


def test_a_row_left_to_final_grading_whose_public_seeds_go_both_ways_is_predicted_as_a_range():
    """A row left to final grading whose evidence is drawn per seed (as C.diagnose_rules' was, from every public
    seed's logs at the lines): with one public seed's cases all right and another's not, final grading's one seed may
    go either way, so the row predicts 0 to 2."""
    rules = {"adds": "left to final grading, as checked by", "builds_on": ("C.fresh_runs",),
             "credit": "all_or_nothing"}
    fresh = {"C.fresh_runs": Row("C.fresh_runs", "fresh", 4, 4, True, "all right", 1.0)}
    row = Row("C.diagnose_rules", "rules", 2, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=22 / 24,
              evidence="`diagnose` labels 22 of the 24 logs right", spread=[0.0, 1.0])
    assert (predicted(row, rules, fresh), ceiling(row, rules, fresh)) == (0, 2)
    assert row_line(row, rules, fresh).endswith("(predicted 0/2, or up to 2)")
    lost = {"C.fresh_runs": Row("C.fresh_runs", "fresh", 4, 3.83, False, "1 run labelled wrong", 1.0)}
    assert (predicted(row, rules, lost), ceiling(row, rules, lost)) == (0, 2)


def test_agreeing_with_a_diagnosis_that_fails_a_public_check_is_no_evidence_the_labels_are_right():
    """C.own_labels counts how many of the student's labels are their `diagnose`'s: while `diagnose` and what it
    reads pass, that is the prediction; once one of the rows it trusts fails (or its evidence falls short), the
    labels may be right or wrong: from none of the points to all, and the line says which row. One not run predicts
    nothing, as a row it builds on does."""
    spec = {"adds": "left to final grading: predicted from", "builds_on": (), "credit": "per_case",
            "trusts": ("C.entropy", "C.diagnose_rules")}
    own = Row("C.own_labels", "own", 3, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=1.0,
              evidence="`my_labels` names 3 of your 3 logs as your `diagnose` does")
    rules = Row("C.diagnose_rules", "rules", 2, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=1.0)
    found = {"C.entropy": Row("C.entropy", "entropy", 2, 2, True, "m", 1.0), "C.diagnose_rules": rules}
    assert (predicted(own, spec, found), ceiling(own, spec, found)) == (3, 3)
    assert row_line(own, spec, found).endswith("(predicted 3/3)")
    found["C.entropy"] = Row("C.entropy", "entropy", 2, 0, False, "wrong on 3 logs", 1.0)
    assert (predicted(own, spec, found), ceiling(own, spec, found)) == (0, 3)
    assert row_line(own, spec, found).endswith("(predicted 0/3, or up to 3: C.entropy fails here, which the evidence "
                                               "above takes as right)")
    found["C.entropy"] = Row("C.entropy", "entropy", 2, 2, True, "m", 1.0)
    found["C.diagnose_rules"] = Row("C.diagnose_rules", "rules", 2, 0, False, FINAL_ONLY, 0.0, final_only=True,
                                    foreseen=7 / 8)
    assert (predicted(own, spec, found), ceiling(own, spec, found)) == (0, 3)
    del found["C.diagnose_rules"]  # not run (--checks): no prediction, and no word that it fails
    assert predicted(own, spec, found) is None and ceiling(own, spec, found) is None
    assert "run every check of C to see whether they do" in said(own, spec, found)
    assert "fails here" not in said(own, spec, found)


def test_a_run_whose_edge_case_piece_fails_may_or_may_not_be_credited_and_leads_with_the_fix():
    """A.bar trusts A.clip_gradient: a clip wrong only where training may never go leaves the run between 0 and its
    score here, and the row leads with the piece to fix, as it does for a piece it builds on."""
    from autograder.student_kit import final_grading

    assert final_grading("A")["A.bar"]["trusts"] == ("A.clip_gradient", "A.value_entropy")
    spec = {**SPECS["A.bar"], "trusts": ("A.clip",), "unsure": ", and this run cannot tell whether your training "
                                                               "reaches what fails"}
    found = {**rows(gae_passes=True), "A.clip": Row("A.clip", "clip", 3, 0, False, "beyond the clip", 1.0)}
    assert (predicted(found["A.bar"], spec, found), ceiling(found["A.bar"], spec, found)) == (0, 6)
    line = row_line(found["A.bar"], spec, found)
    assert ("6/6   at risk: 0 to 6/6 predicted  Predicted 0/6, or up to 6: A.clip fails here, and this run cannot "
            "tell whether your training reaches what fails. Fix A.clip first. Why: final grading also replays"
            ) in line, line
    assert line.endswith("Here: median return 500")
    found["A.bar"] = Row("A.bar", "bar", 6, 2, False, "median return 300", 9.0)
    assert (predicted(found["A.bar"], spec, found), ceiling(found["A.bar"], spec, found)) == (0, 2)


def test_a_row_it_builds_on_that_fails_leads_before_a_row_it_trusts():
    """C.diagnose_rules builds on C.fresh_runs and trusts the diagnostics: with both failing, the next step (fix
    C.fresh_runs) leads, and the range is 0 to all."""
    spec = {"adds": "left to final grading, as checked by", "builds_on": ("C.fresh_runs",), "trusts": ("C.td_q",),
            "credit": "all_or_nothing"}
    found = {"C.fresh_runs": Row("C.fresh_runs", "fresh", 4, 3, False, "1 run labelled wrong", 1.0),
             "C.td_q": Row("C.td_q", "td", 2, 0, False, "wrong", 1.0)}
    row = Row("C.diagnose_rules", "rules", 2, 0, False, FINAL_ONLY, 0.0, final_only=True, foreseen=1.0)
    assert (predicted(row, spec, found), ceiling(row, spec, found)) == (0, 2)
    assert said(row, spec, found).startswith("Predicted 0/2, or up to 2 if the runs final grading checks never reach "
                                             "what fails: this row builds on C.fresh_runs, which fails here.")


def test_a_piece_that_fails_only_where_training_does_not_reach_leaves_the_run_predicted_whole():
    """A.update fails (its entropy bonus is wrong) but the update the course's runs make, without the bonus, is
    right: the replay follows, so the run is predicted as it scored, and the line says why."""
    found = rows(gae_passes=True)
    found["A.batch"] = Row("A.batch", "batch", 1, 0, False, "'values' is wrong", 1.0, basis=True)
    assert predicted(found["A.bar"], SPECS["A.bar"], found) == 6
    line = row_line(found["A.bar"], SPECS["A.bar"], found)
    assert "A.batch fails only in what the course's runs do not use (predicted 6/6)" in line
    found["A.batch"] = Row("A.batch", "batch", 1, 0, False, "'obs' is wrong", 1.0, basis=False)
    assert predicted(found["A.bar"], SPECS["A.bar"], found) == 0


def test_a_piece_that_fails_only_in_the_runs_of_one_row_is_held_against_that_row_alone():
    """B.switches fails on a switch only B.bar's runs flip: B.table, whose runs do not flip it, is predicted whole."""
    switches = Row("B.switches", "switches", 6, 5.33, False, "clip_value_loss: ...", 1.0,
                   basis={"B.table": True, "B.bar": False})
    specs = {cid: {"adds": "left to final grading, which credits it only if", "builds_on": ("B.switches",)}
             for cid in ("B.table", "B.bar")}
    found = {"B.switches": switches, **{cid: Row(cid, cid, 3, 0, False, FINAL_ONLY, 0.0, final_only=True)
                                        for cid in specs}}
    assert predicted(found["B.table"], specs["B.table"], found) == 3
    assert predicted(found["B.bar"], specs["B.bar"], found) == 0
    assert "B.switches fails only in what the course's runs do not use" in row_line(found["B.table"],
                                                                                   specs["B.table"], found)


# ------------------------------------------------------------------ what A's piece checks tell of the training


@pytest.fixture(scope="module")
def a_kit(tmp_path_factory) -> Path:
    return build(paths.KIT_ROOT, tmp_path_factory.mktemp("prediction") / "kit", ["A"])


@pytest.fixture(scope="module")
def a_expected(a_kit) -> dict:
    return json.loads((a_kit / "capstone_check" / "expected" / "A.json").read_text())["checks"]


def test_the_bundle_holds_a_sample_of_the_reference_runs_of_every_public_seed(a_kit, a_expected):
    runs = a_expected["A.bar"]["reference_runs"]
    assert sorted(runs["seeds"]) == sorted(str(seed) for seed in a_expected["A.bar"]["seeds"])
    assert (a_kit / "capstone_check" / "expected" / runs["file"]).is_file()


@pytest.mark.parametrize("mutant, said", [
    ("min and max swapped", "your pieces make 10 updates of each of the reference's runs on the public seeds as "
                            "it did: A.clip_gradient fails here only in cases those updates never meet (predicted "
                            "6/6)"),
    ("clip applied on the wrong side", "your pieces do not make update 1 of the reference's run of seed 7 as it "
                                       "did (parameters"),
])
def test_a_bar_is_predicted_from_whether_the_pieces_remake_the_reference_runs(a_kit, tmp_path, mutant, said):
    """One number either way, where the piece rows alone left a range: a clip wrong only where training never goes
    keeps the run's score; one wrong where it goes is 0, led by the row to fix."""
    planted(tmp_path, next(m for m in ALL if m.name.startswith(mutant)))
    with forgotten_after(["ppo"]):
        line = kit_line(a_kit, tmp_path, "A", "A.bar")
    assert said in line, line
    assert "or up to" not in line
    if "do not make" in line:
        assert line.index("Predicted 0/6: Fix ") < line.index(said)


def _verdict(tmp_path: Path, spec: dict, mutant: str | None):
    from autograder.projects.a_ppo.public.batch import batch
    from autograder.projects.a_ppo.public.update import update
    from capstone_check.student import Student

    root = copy_reference(tmp_path, "A_ppo")
    if mutant is not None:
        planted = next(m for m in ALL if m.name == mutant)
        source = (root / "A_ppo" / "ppo.py").read_text()
        (root / "A_ppo" / "ppo.py").write_text(mutate(source, planted.old, planted.new))
    with forgotten_after(["ppo"]):
        return {"a_batch": batch, "a_update": update}[spec["kind"]](Student(root / "A_ppo", ["ppo"]), spec)


@pytest.mark.parametrize("check, mutant, basis", [
    ("A.update", None, None),
    ("A.update", "entropy bonus descended instead of ascended", True),
    ("A.update", "value loss without vf_coef", False),
    ("A.update", "ppo_update clips the surrogate at a hard-coded 0.2, not config.clip_eps", True),
    ("A.batch", None, True),
    ("A.batch", "batch values are V(s_{t+1})", True),
    ("A.batch", "reset steps left in the batch", False),
])
def test_a_piece_check_tells_whether_what_training_uses_of_it_passes(a_expected, tmp_path, check, mutant, basis):
    verdict = _verdict(tmp_path, a_expected[check], mutant)
    assert (verdict.fraction == 1.0) == (mutant is None)
    assert verdict.basis is basis


def test_what_the_prediction_assumes_of_training_is_what_the_course_trains_with():
    """The update's configuration every graded run trains with, and the batch keys the reference's update reads: an
    update on a batch whose other keys are noise is the same update."""
    course = load_course(paths.COURSE_FILE, private=False)
    trains_with = course.projects["A"].checks["A.bar"].bar["hyperparameters"]
    assert {key: trains_with[key] for key in TRAINED} == TRAINED
    _, batch_ = update_inputs(0)
    unread = {key: value if key in UPDATE_READS else np.random.default_rng(1).normal(size=np.shape(value))
              for key, value in batch_.items()}
    assert set(unread) - set(UPDATE_READS), "the case's batch has no key the update leaves unread"
    given, noise = _reference_update(batch_), _reference_update(unread)
    assert all(np.array_equal(a, b) for a, b in zip(given, noise))


def _reference_update(batch_: dict) -> list:
    agent, _ = update_inputs(0)
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
    oracle.ppo_update(agent, optimizer, batch_, UPDATE_CONFIG, np.random.default_rng(0))
    return flatten(agent["actor"]) + flatten(agent["critic"])


# ------------------------------------------------------- what C's rows left to final grading are predicted from


@pytest.fixture(scope="module")
def c_expected(tmp_path_factory) -> tuple[dict, Path]:
    kit = build(paths.KIT_ROOT, tmp_path_factory.mktemp("prediction") / "kit", ["C"])
    expected = kit / "capstone_check" / "expected"
    return json.loads((expected / "C.json").read_text())["checks"], expected


@pytest.mark.parametrize("check, mutant", [
    ("C.own_labels", None), ("C.own_labels", "each verdict filed under the next log's name"),
])
def test_a_row_left_to_final_grading_has_public_evidence_that_a_planted_bug_fails(c_expected, tmp_path, check,
                                                                                   mutant):
    from autograder.projects.c_diagnosis.public.diagnose import own_labels
    from capstone_check.student import Student

    checks, expected = c_expected
    probe = {**checks[check]["probe"], "_dir": str(expected)}
    root = copy_reference(tmp_path, "C_diagnosis")
    shutil.copytree(paths.SOLUTIONS / "C_diagnosis" / "logs", root / "C_diagnosis" / "logs", dirs_exist_ok=True)
    if mutant is not None:
        planted = next(m for m in ALL if m.name == mutant)
        path = root / "C_diagnosis" / planted.module
        path.write_text(mutate(path.read_text(), planted.old, planted.new))
    with forgotten_after(["diagnostics"]):
        student = Student(root / "C_diagnosis", ["diagnostics"])
        verdict = own_labels(student, probe)
    assert (verdict.fraction == 1.0) == (mutant is None), verdict.message
    assert verdict.spread is None, verdict.message


@pytest.mark.parametrize("mutant, said", [
    (None, "as your `diagnose` does (predicted 3/3)"),
    ("diagnose that always says one label", "as your `diagnose` does (predicted 1/3: C.fresh_runs fails here, and your "
                                            "`diagnose` is right on every public run of untrained critic and wrong on "
                                            "every one of saturated policy and small replay buffer; your logs hold one "
                                            "of each fault)"),
    # a saturated policy's critic is sound in every shaped run, the student's own logs too: C.diagnose_rules sees it
    ("diagnose reads the critic before the policy", "as your `diagnose` does (predicted 3/3)"),
    # the shaped small buffers' TD errors cancel in every update, in the student's own logs too
    ("TD errors averaged with their sign", "(predicted 2/3: C.fresh_runs fails here, and your `diagnose` is right on "
                                           "every public run of saturated policy and untrained critic and wrong on "
                                           "every one of small replay buffer; your logs hold one of each fault)"),
])
def test_labels_that_agree_with_a_diagnose_shown_wrong_here_are_predicted_as_a_range(c_expected, tmp_path, mutant,
                                                                                    said):
    """`my_labels` calls `diagnose`, so the two agree on all three logs whatever `diagnose` does: while `diagnose`
    labels the public fresh runs right (the student's logs are fresh runs of the three faults) that predicts 3/3,
    whatever diagnostic fails its own check; once it does not, each fault counts as its public runs went (one of each
    is the student's): right every time, a point; wrong every time, none; both ways, a range."""
    checks, expected = c_expected
    # checked here as final grading judges it, led by C.fresh_runs where both fail, never predicted from another row
    assert checks["C.diagnose_rules"]["led_by"] == ["C.fresh_runs"] and "trusts" not in checks["C.diagnose_rules"]
    assert checks["C.own_labels"]["trusts"] == ["C.fresh_runs"]
    if mutant is None:
        copy_reference(tmp_path, "C_diagnosis")
    else:
        planted(tmp_path, next(m for m in ALL if m.name == mutant))
    shutil.copytree(paths.SOLUTIONS / "C_diagnosis" / "logs", tmp_path / "C_diagnosis" / "logs", dirs_exist_ok=True)
    with forgotten_after(["diagnostics"]):
        line = kit_line(expected.parent.parent, tmp_path, "C", "C.own_labels")
    assert line.endswith(said), line


def b_folder(tmp_path: Path, mutant: str | None = None) -> Path:
    """A copy of B's reference folder, with the planted bug whose name starts with ``mutant``."""
    folder = copy_reference(tmp_path, "B_ablations") / "B_ablations"
    if mutant is not None:
        planted = next(m for m in ALL if m.name.startswith(mutant))
        path = folder / planted.module
        path.write_text(mutate(path.read_text(), planted.old, planted.new))
    return folder


def b_verdict(check, folder: Path, modules: list[str], spec: dict):
    """``check`` (a function of the students' checker) on ``folder``, its modules imported afresh and forgotten."""
    from capstone_check.student import Student

    with forgotten_after(modules):
        return check(Student(folder, modules), spec)


@pytest.mark.parametrize("mutant, basis", [
    ("a gradient-clipping switch that does nothing", {"B.table": True, "B.bar": True}),
    ("flipping gradient clipping also drops advantage normalization", {"B.table": True, "B.bar": True}),
    ("clipped value loss with the plain gradient everywhere", {"B.table": True, "B.bar": False}),
    ("value-loss clip half-width hard-coded at the default", {"B.table": True, "B.bar": True}),
    ("Adam's large epsilon hard-coded at the default", {"B.table": True, "B.bar": True}),
    ("the surrogate's clip half-width hard-coded at the default", {"B.table": True, "B.bar": True}),
])
def test_a_broken_switch_counts_against_b_s_runs_only_if_they_flip_it(b_expected, tmp_path, mutant, basis):
    """The reference ablates normalize_advantages, clip_value_loss, orthogonal_init, anneal_lr and multiple_epochs
    (B.bar's runs) and names multiple_epochs (B.table's runs, with the baseline); gradient clipping stays on in every
    run it makes, so final grading's replays never reach a broken clip switch, and only B.bar's reach the value clip.
    A clip half-width or Adam epsilon hard-coded at its default fails the check's own values, not the course's, with
    which every graded run trains (final grading credited those folders' table and bar)."""
    from autograder.projects.b_ablations.public.switches import switches

    verdict = b_verdict(switches, b_folder(tmp_path, mutant), b_expected["modules"], b_expected["checks"]["B.switches"])
    assert verdict.fraction < 1 and verdict.basis == basis, verdict.message


@pytest.mark.parametrize("old, new, basis", [
    ("mlp_init_gaussian(sizes + [N_ACTIONS], rng)", "mlp_init_gaussian(rng, sizes + [N_ACTIONS])",
     {"B.table": True, "B.bar": False}),  # raises only where orthogonal_init is flipped, which B.bar's runs flip
    ("    if details.orthogonal_init:", "    raise ValueError('no init')\n    if details.orthogonal_init:",
     {"B.table": False, "B.bar": False}),
])
def test_a_switch_that_raises_counts_against_b_s_runs_only_if_they_flip_it(b_kit, b_expected, tmp_path, old, new,
                                                                           basis):
    """A Gaussian init with its arguments swapped raises only where orthogonal_init is flipped: B.switches is lost on
    that raise, as final grading loses it, and the runs of B.table (the baseline and multiple_epochs) never meet it
    (final grading credited that folder's table). An init that raises everywhere reaches every run. The child hands
    the basis back beside the raise."""
    from capstone_check.child import run
    from autograder.projects.b_ablations.public.switches import switches
    from capstone_check.student import StudentError

    folder = b_folder(tmp_path)
    (folder / "details.py").write_text(mutate((folder / "details.py").read_text(), old, new))
    with pytest.raises(StudentError) as raised:
        b_verdict(switches, folder, b_expected["modules"], b_expected["checks"]["B.switches"])
    assert "init_agent" in str(raised.value) and raised.value.basis == basis
    with forgotten_after(b_expected["modules"]):
        result = run({"expected": str(b_kit / "capstone_check" / "expected" / "B.json"), "check": "B.switches",
                      "folder": str(folder), "modules": b_expected["modules"]})
    assert result["status"] == "student_error" and result["basis"] == basis and result["message"] == str(raised.value)


# ---------------------------------------------------- what B's rows left to final grading are predicted from


@pytest.fixture(scope="module")
def b_kit(tmp_path_factory) -> Path:
    return build(paths.KIT_ROOT, tmp_path_factory.mktemp("prediction") / "kit", ["B"])


@pytest.fixture(scope="module")
def b_expected(b_kit) -> dict:
    return json.loads((b_kit / "capstone_check" / "expected" / "B.json").read_text())


def _wrong_summary(text: str) -> str:
    table = json.loads(text)
    table["summary"]["baseline"]["median"] += 1.0
    return json.dumps(table)


@pytest.mark.parametrize("check, mutant, share", [
    ("B.table", None, 1.0),
    ("B.table", "a Config whose step size is not the course's", 0.0),   # final grading refuses the runs
    ("B.table", "a results table with a made-up run", 0.25),            # the baseline's row, and the form with it
    ("B.table", "a summary that is not the table's own", 0.75),         # the form's summary case alone
    ("B.table", "medians taken over the wrong axis", 1.0),              # results.json was not written by this code
    ("B.bar", None, 1.0),
    ("B.bar", "a conclusion naming a factor that does not meet the bar", 0.5),
    ("B.bar", "a results table with a made-up run", 1.0),                # the re-run does not read the table
    ("B.bar", "matters compares the means", 1.0),                       # the bar is the grader's, on its replay
])
def test_b_s_rows_left_to_final_grading_are_predicted_from_the_folder_as_final_grading_reads_it(
        b_expected, tmp_path, check, mutant, share):
    """B.table reads results.json and the runs of runs.npz as they are, with the course's hyperparameters; B.bar
    measures the chapter's bar on its own re-run of the public seeds, whose scores results.json holds. The shares
    are those final grading gave the planted bugs' folders (benchmarks/kit_prediction.py), and for the edited summary
    what B.table's judge counts: the form's summary case lost, the replayed rows kept."""
    from autograder.projects.b_ablations.public.evidence import bar, table

    folder = b_folder(tmp_path, None if mutant == "a summary that is not the table's own" else mutant)
    if mutant == "a summary that is not the table's own":
        (folder / "results.json").write_text(_wrong_summary((folder / "results.json").read_text()))
    probe = b_expected["checks"][check]["probe"]
    verdict = b_verdict({"b_table_evidence": table, "b_bar_evidence": bar}[probe["kind"]], folder,
                        b_expected["modules"], probe)
    assert verdict.fraction == share, verdict.message


@pytest.mark.parametrize("mutant, basis", [
    ("the surrogate's clip half-width hard-coded, so details.train parts from ppo.train off the defaults", True),
    ("annealing one update early, so the defaults no longer train as Project A", False),
])
def test_b_defaults_tells_whether_the_course_s_runs_train_as_project_a(b_expected, tmp_path, mutant, basis):
    """B.defaults trains off every default, so a value hard-coded at its default fails there; the course's runs
    train with its hyperparameters, where such a details.py is ppo.train (final grading credited its table and bar)."""
    from autograder.projects.b_ablations.public.settings import defaults

    verdict = b_verdict(defaults, b_folder(tmp_path, mutant), b_expected["modules"], b_expected["checks"]["B.defaults"])
    assert verdict.fraction < 1 and verdict.basis is basis, verdict.message


@pytest.mark.parametrize("mutant, check, said", [
    ("clipped value loss with the plain gradient everywhere", "B.bar",
     "Predicted 0/7: Fix B.switches first; your pieces do not make update 1 of the reference's clip_value_loss "
     "run of seed 7 as it did (parameters"),
    ("truncation switch that never bootstraps", "B.table",
     # the update of the first truncation the run meets: where training's rounding leads it, so any update number
     "Predicted 0/3: Fix B.switches first; your pieces do not make update {N} of the reference's baseline run of "
     "seed 7"),
    ("annealing one update early", "B.bar", "Predicted 0/7: Fix B.defaults and B.switches first; your pieces do not "
                                            "make update 1 of the reference's baseline run of seed 7"),
])
def test_b_s_rows_lost_where_the_pieces_do_not_remake_the_reference_runs(b_kit, tmp_path, mutant, check, said):
    """One number where the failing piece rows alone left a range (benchmarks/kit_prediction.py: final grading gave
    each of these 0 on the row): the reference's own run of a setting the row grades departs, led by the row to fix."""
    planted(tmp_path, next(m for m in ALL if m.name.startswith(mutant)))
    with forgotten_after(["ppo", "details", "ablation"]):
        line = kit_line(b_kit, tmp_path, "B", check)
    assert re.search(re.escape(said).replace(re.escape("{N}"), r"\d+"), line) and "or up to" not in line, line


def test_b_s_rows_of_a_piece_the_graded_runs_never_reach_stay_whole(b_kit, tmp_path):
    """The plain-gradient value clip acts only in clip_value_loss runs, which B.table does not grade (the baseline
    and the named multiple_epochs): its row stays as the table earns it."""
    planted(tmp_path, next(m for m in ALL if m.name.startswith("clipped value loss with the plain gradient")))
    with forgotten_after(["ppo", "details", "ablation"]):
        line = kit_line(b_kit, tmp_path, "B", "B.table")
    assert "(predicted 3/3)" in line and "do not make" not in line, line
