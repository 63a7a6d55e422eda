"""A generated mutant of D's reference (tests/support/mutations.py) that kept full marks, a real mistake, caught now
by a row drawn after the others: a test of which responses make the price 0 that reaches a logit below the exploit
(``disadvantage >= -1`` for ``>= 0``) returns 0 on a row floored by a response half a logit below it that earns more.
Final grading and the students' checker fail it; the reference keeps full marks."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.price import PRICE_ROW_KINDS, price_cases, price_kinds
from rlkit.toy import N_PROMPTS
from tests.support.grading import copy_reference, grade_checks, write_submission
from tests.support.mutations import generate
from tests.support.student_bundle import kit_result
from tests.support.survivors import graded_rows

SEEDS = [4_000_000_000, 17, 123_456_789, 0, 7, 8, 9, 101, 102, 103, 2**32 - 1]


def reaching_a_logit_below():
    [mutant] = [m for m in generate("D") if m.id.startswith("D.price_exploit.") and m.change == "0 -> -1"
                and "if np.any((disadvantage >= -1) & (gap <= 0)):" in m.source]
    return mutant


def price_reaching_a_logit_below(logits, rewards, exploit) -> float:
    """The mutant's price_exploit."""
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    if np.any((disadvantage >= -1) & (gap <= 0)):
        return 0.0
    ceiling = np.min(gap[disadvantage > 0] / disadvantage[disadvantage > 0], initial=np.inf)
    floor = np.max(gap[disadvantage < 0] / disadvantage[disadvantage < 0], initial=0.0)
    return float(ceiling) if ceiling > floor else 0.0


def test_a_response_half_a_logit_below_that_earns_more_tells_the_mutant_from_the_oracle():
    row = (np.array([0.0, -0.5, 1.0]), np.array([2.0, 3.0, -1.0]), 0)
    assert oracle.price_exploit(*row) == 3.0 and price_reaching_a_logit_below(*row) == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_the_price_rows_end_with_a_floor_half_a_logit_below_on_which_the_mutant_returns_0(seed):
    cases = price_cases(seed)
    assert len(cases) == N_PROMPTS + len(PRICE_ROW_KINDS) and price_kinds()[-1] == "floor half a logit below"
    departs = [price_reaching_a_logit_below(*case) != oracle.price_exploit(*case) for case in cases]
    assert departs[-1] and oracle.price_exploit(*cases[-1]) > 0 and price_reaching_a_logit_below(*cases[-1]) == 0
    logits, rewards, exploit = cases[-1]
    near = logits - logits[exploit] == -0.5
    assert np.all(rewards[near] > rewards[exploit])


def test_a_price_test_reaching_a_logit_below_the_exploit_fails_d_price_exploit_and_the_reference_passes(course):
    row = graded_rows(reaching_a_logit_below(), course, "public", ["D.price_exploit"])["D.price_exploit"]
    assert not row["passed"] and row["score"] == 0, row["message"]
    assert "floored by a response half a logit below the exploit: returned 0" in row["message"], row["message"]
    reference = grade_checks(paths.SOLUTIONS, course, ["D.price_exploit"])["D.price_exploit"]
    assert reference["passed"] and reference["score"] == reference["max_score"], reference["message"]


@pytest.fixture(scope="module")
def d_kit(tmp_path_factory):
    from autograder.student_kit import build

    return build(paths.KIT_ROOT, tmp_path_factory.mktemp("price") / "kit", ["D"])


def test_the_students_checker_fails_it_and_passes_the_reference(d_kit, tmp_path):
    mutant = reaching_a_logit_below()
    root = write_submission(copy_reference(tmp_path / "mutant", "D_grpo"), mutant.source, "D_grpo", mutant.module)
    result = kit_result(d_kit, root, "D", "D.price_exploit")
    assert result["fraction"] < 1 and "half a logit below the exploit" in result["message"], result["message"]
    reference = kit_result(d_kit, copy_reference(tmp_path / "reference", "D_grpo"), "D", "D.price_exploit")
    assert reference["fraction"] == 1, reference["message"]


@pytest.mark.parametrize("folder", [paths.SOLUTIONS, paths.ASSIGNMENTS])
def test_the_readme_counts_the_rows_beyond_the_toy_as_the_check_draws_them(folder):
    readme = (folder / "D_grpo" / "README.md").read_text(encoding="utf-8")
    rows = {len(price_cases(seed)) - N_PROMPTS for seed in SEEDS}
    assert len(rows) == 1 and f"exact answers on {rows.pop()} rows you have not seen" in readme
