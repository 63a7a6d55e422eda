"""Every planted bug loses points on the check meant to catch it, on the public seeds and on an unusual seed set alike,
is named by its own finding where its project's catalogue of mistakes has one, and is said plainly (graded beside the
rows its check builds on, so a row led by a failing one shows it); every correct implementation
written differently keeps full marks, with no finding; and every check has a bug that it catches."""

import pytest

from autograder import paths
from autograder.projects import PROJECTS
from tests.support.grading import copy_reference, grade_checks, mutate, write_submission
from tests.support.mutants import ALL, EQUIVALENT
from tests.support.plain_messages import unplain

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

UNUSUAL_SEEDS = [4_000_000_000, 17, 123_456_789]  # large, small, unsorted: inputs must reach the bug on any seed


@pytest.fixture(scope="module")
def unusual_course(course):
    """The kit's course with the unusual seeds as its grading set."""
    return course.model_copy(update={"seeds": course.seeds.model_copy(update={"grading": UNUSUAL_SEEDS})})


def graded(tmp_path, planted, checks, course, unusual_course) -> list[dict[str, dict]]:
    """The results of ``checks`` (id: result) on the public seeds and on the unusual seeds, for ``planted`` applied to
    the reference. A check that always runs on the public seeds (B.table) is graded once: on the unusual set it would
    do the same work on the same seeds again."""
    reference = (paths.SOLUTIONS / planted.folder / planted.module).read_text()
    root = copy_reference(tmp_path, planted.folder)
    write_submission(root, mutate(reference, planted.old, planted.new), planted.folder, planted.module)
    public = grade_checks(root, course, checks=list(checks), seed_set="public")
    fixed = {cid for cid in checks if PROJECTS[cid.split(".")[0]].checks[cid].fixed_seeds == "public"}
    others = [c for c in checks if c not in fixed]
    unusual = grade_checks(root, unusual_course, checks=others, seed_set="grading") if others else {}
    return [public, {cid: public[cid] if cid in fixed else unusual[cid] for cid in checks}]


@pytest.mark.parametrize("mutant", ALL, ids=[m.name for m in ALL])
def test_the_planted_bug_is_caught_on_every_seed_and_said_plainly(mutant, tmp_path, course, unusual_course):
    """Caught, named where the catalogue knows it, and said so a student can act on it: every failing row short, each
    thing said once, and led by the row it builds on when that one fails too (graded beside it)."""
    pid = mutant.check.split(".")[0]
    check = PROJECTS[pid].checks[mutant.check]
    whole = (course.projects[pid].checks[mutant.check].credit or check.credit) == "all_or_nothing"
    for rows in graded(tmp_path, mutant, [mutant.check, *check.builds_on], course, unusual_course):
        result = rows[mutant.check]
        assert result["score"] < result["max_score"], f"{mutant.check} did not catch: {mutant.name}"
        assert result["score"] == 0 or not whole, f"{mutant.name} kept part of {mutant.check}"
        assert result["message"] and "not implemented" not in result["message"]
        if mutant.finding:
            assert mutant.finding in [f["id"] for f in result.get("findings", [])], (mutant.name, result["message"])
        for cid, row in rows.items():
            wrong = [] if row["passed"] else unplain(row, rows, PROJECTS[pid].checks[cid].builds_on)
            assert not wrong, (mutant.name, cid, wrong, row["message"])


@pytest.mark.parametrize("variant", EQUIVALENT, ids=[v.name for v in EQUIVALENT])
def test_a_correct_implementation_written_differently_keeps_full_marks(variant, tmp_path, course, unusual_course):
    for result in (row for rows in graded(tmp_path, variant, variant.checks, course, unusual_course)
                   for row in rows.values()):
        assert result["passed"], (variant.name, result["id"], result["message"])
        assert "findings" not in result, (variant.name, result["findings"])


@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_every_check_has_a_planted_bug_that_it_catches(project):
    targeted = {m.check for m in ALL}
    assert set(PROJECTS[project].checks) <= targeted, set(PROJECTS[project].checks) - targeted
