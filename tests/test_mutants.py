"""Every planted bug loses points on the check meant to catch it, and every check has a bug that it catches."""

import pytest

from autograder import paths
from autograder.projects import PROJECTS
from conftest import copy_reference, grade_checks, mutate, write_submission
from mutants import ALL


@pytest.mark.parametrize("mutant", ALL, ids=[m.name for m in ALL])
def test_the_planted_bug_is_caught(mutant, tmp_path, course):
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    result = grade_checks(root, course, checks=[mutant.check], seed_set="grading")[mutant.check]
    assert result["score"] < result["max_score"], f"{mutant.check} did not catch: {mutant.name}"
    assert result["message"] and "not implemented" not in result["message"]


@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_every_check_has_a_planted_bug_that_it_catches(project):
    targeted = {m.check for m in ALL}
    assert set(PROJECTS[project].checks) <= targeted, set(PROJECTS[project].checks) - targeted
