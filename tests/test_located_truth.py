"""Every located statement is true of its mutant: mistakes nobody wrote by hand (tests/support/mutations.py) are
graded on the checks that locate departures, and each statement in a failing row is checked against the mutant's own
output on the check's cases (tests/support/located_truth.py), not by reading the message. The reference and every
correct rewrite carry no statement (tests/test_mutants.py holds the rewrites)."""

import pytest

from autograder.projects import PROJECTS
from tests.support.grading import copy_reference, grade_checks, write_submission
from tests.support.located_truth import judged_statements, loaded
from tests.support.mutations import generate

pytestmark = pytest.mark.slow  # grades some forty mutants: `make test-fast` leaves it out

PIECES = {  # the generated mutants' function -> the check that locates its departures
    "gae": "A.gae", "kl_penalized_reward": "D.kl_penalty", "group_standardized_weight": "D.weights",
    "leave_one_out_weight": "D.weights", "group_centered_weight": "D.weights",
    "clipped_surrogate_gradient": "D.clip_gradient", "explained_variance": "C.explained_variance",
    "return_drop": "C.return_drop", "policy_entropy": "C.entropy", "approx_kl": "C.kl_clip",
    "clipped_surrogate": "A.clip_gradient", "value_loss": "A.value_entropy", "grpo_step": "D.grpo_step",
    "ppo_update": "A.update",
    "price_exploit": "D.price_exploit"}
EACH = 3  # mutants of each function, at even steps through its list


def sampled():
    chosen = []
    for project in ("A", "C", "D"):
        for function, check in PIECES.items():
            mutants = [m for m in generate(project) if m.id.split(".")[1] == function and check[0] == project]
            chosen += [mutants[i * len(mutants) // EACH] for i in range(min(EACH, len(mutants)))]
    return chosen


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course):
    """Each sampled mutant's failing row of its check: (mutant, check, row)."""
    rows = []
    for mutant in sampled():
        check = PIECES[mutant.id.split(".")[1]]
        root = copy_reference(tmp_path_factory.mktemp("mutant"), mutant.folder)
        write_submission(root, mutant.source, mutant.folder, mutant.module)
        row = grade_checks(root, course, checks=[check])[check]
        if not row["passed"] and "status" not in row["details"]:
            rows.append((mutant, check, root))
            rows[-1] += (row,)
    return rows


def test_every_located_statement_is_true_of_its_mutants_output(graded, course):
    said = 0
    for mutant, check, root, row in graded:
        pid = check.split(".")[0]
        with loaded(root / mutant.folder, PROJECTS[pid].modules) as piece:
            checked, false = judged_statements(check, row.get("located", []), piece, min(course.seeds.public),
                                               course.projects[pid].checks[check].bar)
        assert not false, (mutant.id, mutant.change, false, row["located"])
        said += checked
    assert said >= 10, f"only {said} statements were checked on {len(graded)} failing rows"


def test_the_reference_carries_no_statement(tmp_path, course):
    for folder, checks in (("A_ppo", ["A.gae"]), ("C_diagnosis", ["C.entropy", "C.explained_variance"]),
                           ("D_grpo", ["D.weights", "D.kl_penalty", "D.clip_gradient"])):
        for cid, row in grade_checks(copy_reference(tmp_path, folder), course, checks=checks).items():
            assert row["passed"] and "located" not in row, (cid, row["message"])


def test_on_grading_seeds_the_row_keeps_its_statements_and_says_no_seed(tmp_path, course):
    """A statement names a feature or a relation only, so a report on a private overlay's grading seeds (which quotes
    nothing the student's code returned) still says where the output departs, and no seed appears in it."""
    seeds = [4_000_000_000, 17, 123_456_789]
    grading = course.model_copy(update={"seeds": course.seeds.model_copy(update={"grading": seeds}),
                                        "private_overlay": str(tmp_path / "course.private.yml")})
    mutant = next(m for m in generate("A") if m.change == "1 - (terminated[t] | truncated[t]) -> 1")
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutant.source, mutant.folder, mutant.module)
    public = grade_checks(root, course, checks=["A.gae"])["A.gae"]
    row = grade_checks(root, grading, checks=["A.gae"], seed_set="grading")["A.gae"]
    assert row["located"] == public["located"] and row["located"], row
    assert "Where it differs: " + row["located"][0]["text"] in row["message"]
    assert "Smallest failing case" not in row["message"]  # the student's outputs are shown on public seeds only
    assert not any(str(seed) in row["message"] for seed in seeds), row["message"]


def test_a_step_said_to_pass_a_piece_a_wrong_input_does_so_with_the_references_pieces(tmp_path, course):
    """The grpo_step mutants that read a policy at the wrong prompt (``x - 1``): each row that says the step passes a
    piece inputs no right step passes holds when the reference's own pieces stand in for the student's, and at least
    one row says it (the sample above may draw none)."""
    said = 0
    for mutant in (m for m in generate("D") if m.id.startswith("D.grpo_step.shift_index.") and "x - 1" in m.change):
        root = copy_reference(tmp_path / mutant.id, mutant.folder)
        write_submission(root, mutant.source, mutant.folder, mutant.module)
        row = grade_checks(root, course, checks=["D.grpo_step"])["D.grpo_step"]
        passes = [s for s in row.get("located", []) if ".passes-" in s["id"]]
        with loaded(root / mutant.folder, PROJECTS["D"].modules) as piece:
            checked, false = judged_statements("D.grpo_step", passes, piece, min(course.seeds.public),
                                               course.projects["D"].checks["D.grpo_step"].bar)
        assert not false and checked == len(passes), (mutant.id, mutant.change, passes)
        said += len(passes)
    assert said >= 2, said
