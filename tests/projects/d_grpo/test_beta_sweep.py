"""D.beta_sweep's "the hedge not growing with beta": a rise within the bar's ``growth_tolerance`` is the noise of a
hedge held near 0, not growth; a rise the size a wrong step makes still fails it."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.d_grpo.public.sweeps import beta_sweep_row, frontier
from capstone_check.student import Student
from tests.support.grading import copy_reference, grade_checks, mutate, write_submission
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL
from tests.support.mutations import generate

COURSE = load_course(paths.COURSE_FILE, private=False)

# A standardized weight over (r - mean) + std: the hedge falls to 0 from beta = 0.1 on, where float rounding leaves it
# 2e-16 and 7e-16 higher at the last beta than the one before on seeds 7 and 8.
HELD_AT_ZERO = "D.group_standardized_weight.swap_name.L63C16.1"


def test_a_hedge_held_at_zero_does_not_grow_by_its_rounding(tmp_path, course):
    mutant = next(m for m in generate("D") if m.id == HELD_AT_ZERO)
    root = write_submission(copy_reference(tmp_path, "D_grpo"), mutant.source, "D_grpo", mutant.module)
    check = grade_checks(root, course, ["D.beta_sweep"])["D.beta_sweep"]
    assert "grow with beta" not in check["message"], check["message"]
    assert check["score"] == 1.33  # the loophole still loses at beta = 0: the weight is wrong


def test_a_step_that_sets_theta_to_its_change_gets_one_grade_on_the_public_and_the_grading_seeds(tmp_path, course):
    """The step's hedge rose by 7.7e-4 from beta = 0.3 to 0.5 on grading seed 103's run, and on no public seed's: the
    criterion once failed on one draw and held on the other. Decided on the median run, both draws fail the same two
    criteria and keep "the hedge not growing with beta"."""
    planted = next(m for m in ALL if m.name == "a step that sets theta to its change")
    root = copy_reference(tmp_path, "D_grpo")
    path = root / "D_grpo" / planted.module
    path.write_text(mutate(path.read_text(), planted.old, planted.new))
    checks = [grade_checks(root, course, ["D.beta_sweep"], seed_set=seeds)["D.beta_sweep"]
              for seeds in ("public", "grading")]
    assert [check["score"] for check in checks] == [0.67, 0.67]
    assert all("grow with beta" not in check["message"] for check in checks)


UNUSUAL = [4_294_967_295, 0, 2**31 + 7]


def median_run(root, seeds: list[int]) -> np.ndarray:
    """The median run's hedge probability per beta over ``seeds``' runs of the step in ``root``, as judged."""
    bar = dict(COURSE.projects["D"].checks["D.beta_sweep"].bar)
    with forgotten_after(["grpo"]):
        student = Student(root / "D_grpo", ["grpo"])
        hedges = [[[frontier(theta)[2] for theta in run] for run in beta_sweep_row(student, {"bar": bar}, seed)]
                  for seed in seeds]
    return np.median(np.array(hedges).reshape(-1, len(bar["betas"])), axis=0)


@pytest.mark.slow
@pytest.mark.parametrize("name, passes", [("reference", (True, True, True)),
                                          ("a step that standardizes its rewards across prompts", (True, True, True)),
                                          ("a step that sets theta to its change", (False, False, True))])
def test_the_median_run_lies_clear_of_every_line_on_each_unusual_seed(tmp_path, name, passes):
    """Each seed alone (five runs) decides each criterion as the course's draw does, and by a margin: a seed whose
    median run fell on the other side of a line would make the grade turn on the draw again."""
    bar = COURSE.projects["D"].checks["D.beta_sweep"].bar
    root = copy_reference(tmp_path, "D_grpo")
    if name != "reference":
        planted = next(m for m in ALL if m.name == name)
        path = root / "D_grpo" / planted.module
        path.write_text(mutate(path.read_text(), planted.old, planted.new))
    high = np.array(bar["betas"]) >= bar["suppressed_from"]
    for seed in UNUSUAL:
        hedge = median_run(root, [seed])
        margins = (hedge[0] - bar["hedge_at_zero_min"], bar["hedge_suppressed_max"] - hedge[high].max(),
                   -(np.diff(hedge).max() - bar["growth_tolerance"]))
        assert tuple(margin > 0 for margin in margins) == passes, (seed, hedge)
        assert min(abs(margin) for margin in margins) >= 0.005, (seed, hedge)
