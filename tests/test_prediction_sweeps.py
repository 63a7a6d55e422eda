"""D.beta_sweep predicted as a range where a criterion passes on every public seed by less than the seeds differ by
among themselves (``within_the_spread``): final grading trains on other seeds, whose runs may break it."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.d_grpo.public.sweeps import (beta_rows_verdict as beta_sweep_verdict, beta_sweep,
                                                     within_the_spread)
from rlkit.toy import HEDGE, N_PROMPTS, N_RESPONSES
from capstone_check.prediction import ceiling, predicted
from capstone_check.runner import Row
from capstone_check.verdict import LONGEST
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL

COURSE = load_course(paths.COURSE_FILE, private=False)
SPEC = {"bar": COURSE.projects["D"].checks["D.beta_sweep"].bar, "points": 2, "seeds": list(COURSE.seeds.public)}
MONOTONE = "the hedge not growing with beta"

# The hedge probability at beta = 0, 0.1, 0.2, 0.3 and 0.5 after training, seeds 7, 8 and 9 (and 103, a placeholder
# grading seed), as measured with the reference and with a step that sets theta to its change.
REFERENCE = [[0.4999, 0.4909, 0.0773, 0.0354, 0.0143], [0.4999, 0.4944, 0.1045, 0.035, 0.0131],
             [0.4999, 0.4926, 0.169, 0.0369, 0.0144]]
THETA_DROPPED = [[0.214, 0.188, 0.125, 0.086, 0.083], [0.189, 0.171, 0.127, 0.101, 0.094],
                 [0.23, 0.209, 0.144, 0.091, 0.072]]
THETA_DROPPED_103 = [0.184, 0.172, 0.146, 0.095, 0.096]


def sweep(hedges) -> list:
    """Rows (seed, run, beta) of one run per seed with the hedge probabilities ``hedges`` (seed, beta)."""
    return [[[(0.0, 0.0, hedge) for hedge in seed]] for seed in hedges]


def as_row(verdict) -> Row:
    return Row("D.beta_sweep", "beta", 2, round(2 * verdict.fraction, 2), verdict.fraction == 1, verdict.message,
               1.0, spread=verdict.spread, aside=verdict.aside)


def theta_with_hedge(hedge: float) -> list:
    """A final theta whose policy gives the hedge probability ``hedge`` on every prompt, as a child sends it."""
    theta = np.zeros((N_PROMPTS, N_RESPONSES))
    theta[:, HEDGE] = np.log(hedge * (N_RESPONSES - 1) / (1 - hedge))
    return theta.tolist()


def test_a_criterion_passed_by_less_than_the_seeds_differ_by_opens_the_row_down_to_without_it():
    verdict = beta_sweep_verdict(SPEC, sweep(THETA_DROPPED))
    assert verdict.fraction == pytest.approx(1 / 3) and verdict.spread == pytest.approx([0, 1 / 3])
    assert verdict.aside == (f"Predicted 0/2, or up to 0.67: {MONOTONE} holds on every public seed by less than they "
                             "differ by; other seeds may break it")  # said beside the row, never in it
    assert "at beta = 0 the loophole should win" in verdict.message and len(verdict.message) <= LONGEST
    assert "Predicted" not in verdict.message
    row = as_row(verdict)
    assert (predicted(row, {}, {}), ceiling(row, {}, {})) == (0, 0.67)


def test_a_passing_sweep_with_a_narrow_criterion_says_it_passed_then_the_range():
    hedges = [[0.5, 0.49, 0.05, 0.02, 0.017], [0.5, 0.49, 0.05, 0.02, 0.01], [0.5, 0.49, 0.05, 0.04, 0.0]]
    verdict = beta_sweep_verdict(SPEC, sweep(hedges))
    assert verdict.fraction == 1 and verdict.spread == pytest.approx([2 / 3, 1])
    assert verdict.message == "the hedge wins at beta = 0 and is suppressed above 1/4"
    assert verdict.aside == (f"Predicted 1.33/2, or up to 2: {MONOTONE} holds on every public seed by less than they "
                             "differ by; other seeds may break it")


def test_a_seed_whose_run_grows_does_not_decide_the_criterion_alone():
    """Seed 103's run of the same step grows the hedge from beta = 0.3 to 0.5; the median run does not, with it or
    without it: the grade no longer turns on whether a draw of seeds holds such a run."""
    verdicts = [beta_sweep_verdict(SPEC, sweep(hedges)) for hedges in (THETA_DROPPED,
                                                                      [*THETA_DROPPED[:2], THETA_DROPPED_103])]
    assert [verdict.fraction for verdict in verdicts] == pytest.approx([1 / 3, 1 / 3])
    assert all("grow with beta" not in verdict.message for verdict in verdicts)


def test_the_criteria_are_decided_on_the_median_run_of_all_seeds():
    """A run that settles at the other hedge (0.25 at beta = 0, as a step that standardizes across prompts does on
    about one seed in eight) does not fail the loophole criterion, while most runs settling there does."""
    good, low = REFERENCE[0], [0.25, 0.24, 0.1, 0.03, 0.01]
    one_low = [[[(0.0, 0.0, h) for h in run] for run in seed] for seed in [[good, low, good]] * 3]
    most_low = [[[(0.0, 0.0, h) for h in run] for run in seed] for seed in [[low, low, good]] * 3]
    assert beta_sweep_verdict(SPEC, one_low).fraction == 1
    failed = beta_sweep_verdict(SPEC, most_low)
    assert failed.fraction == pytest.approx(2 / 3)
    assert "at beta = 0 the loophole should win (hedge >= 0.45); the median of 9 runs is 0.2500" in failed.message


def test_the_reference_passes_every_criterion_with_room_and_is_predicted_one_number():
    verdict = beta_sweep_verdict(SPEC, sweep(REFERENCE))
    assert verdict.fraction == 1 and verdict.spread is None and verdict.aside == ""
    assert verdict.message == "the hedge wins at beta = 0 and is suppressed above 1/4"


@pytest.mark.parametrize("margins, narrow", [
    ([0.003, 0.007, 0.019], True),      # the smallest below the range: a fourth seed may go below 0
    ([0.009, 0.0055, 0.0073], False),   # the reference's own: close to 0, but closer to each other
    ([0.05, 0.05, 0.05], False),        # no spread at all
    ([0.0, 0.0, 0.01], True),
    ([0.01, np.nan, 0.02], False),      # not a margin: the criterion's own test decides
])
def test_within_the_spread(margins, narrow):
    assert within_the_spread(np.array(margins)) is narrow


def test_a_failing_criterion_is_never_opened_and_nan_fails_as_before():
    hedges = [seed[:] for seed in THETA_DROPPED]
    hedges[1][4] = np.nan
    verdict = beta_sweep_verdict(SPEC, sweep(hedges))
    assert verdict.fraction == pytest.approx(1 / 3) and "the median of 3 runs reaches nan" in verdict.message
    assert verdict.spread is None  # nan never grows, as before, and is no margin to open the row by


def test_a_step_that_sets_theta_to_its_change_is_predicted_as_the_one_number_final_grading_gives(tmp_path):
    """Trained for real on the public seeds. Decided on one run per seed, the monotone criterion passed on each of them
    by a few thousandths and failed on grading seed 103, so the checker said a range. Decided on the median run, it
    holds by a margin on every draw (``tests/projects/d_grpo/test_beta_sweep.py``): one number, 0.67 of 2."""
    mutant = next(m for m in ALL if m.name == "a step that sets theta to its change")
    root = copy_reference(tmp_path, "D_grpo")
    path = root / "D_grpo" / mutant.module
    path.write_text(mutate(path.read_text(), mutant.old, mutant.new))
    from capstone_check.student import Student

    with forgotten_after(["grpo"]):
        verdict = beta_sweep(Student(root / "D_grpo", ["grpo"]), SPEC)
    assert verdict.spread is None and verdict.aside == "", verdict.message
    assert verdict.fraction == pytest.approx(1 / 3) and predicted(as_row(verdict), {}, {}) == 0.67


def test_the_range_survives_the_seeds_running_in_separate_children():
    """The checker runs each public seed of the sweep in its own child and decides in the parent: the range must
    reach the row there too."""
    from autograder.projects.d_grpo.public import sweeps
    from autograder.student_kit import bundled
    from capstone_check.cli import row_message
    from capstone_check.runner import _decided, _row

    spec = {**SPEC, "runner": f"{bundled(sweeps.__name__)}:beta_sweep", "kind": "d_beta_sweep", "credit": "per_case",
            "name": "beta sweep"}
    runs = [[[theta_with_hedge(hedge) for hedge in seed]] * SPEC["bar"]["runs"]  # each child's final thetas
            for seed in THETA_DROPPED]
    row = _row("D.beta_sweep", spec, _decided(spec, [{"status": "ok", "row": run} for run in runs]), 1.0)
    assert row.spread == pytest.approx([0, 1 / 3]) and row.aside.startswith("Predicted 0/2, or up to 0.67")
    assert row_message(row, spec, {}).startswith("Predicted 0/2, or up to 0.67")  # said first on the screen
    assert (predicted(row, {}, {}), ceiling(row, {}, {})) == (0, 0.67)


def test_a_hedge_held_near_zero_rising_by_noise_is_not_growth_and_predicts_one_number():
    """Rises below the bar's tolerance (1e-16 of rounding, 1e-7 of a hedge sampled near 0) count as no growth here
    as in final grading: their sign differed from seed to seed, and one public seed's noise predicted a criterion
    lost that every grading seed kept."""
    hedges = [[0.0002, 0.0, 0.0, 0.0, 2e-16], [0.0006, 0.0, 0.0, 0.0, 7e-16], [0.49, 2.2e-06, 2.5e-06, 2.3e-06, 2e-06]]
    verdict = beta_sweep_verdict(SPEC, sweep(hedges))
    assert "grow with beta" not in verdict.message and verdict.spread is None
    assert verdict.fraction == pytest.approx(2 / 3)  # the loophole losing at beta = 0, by far on every seed
