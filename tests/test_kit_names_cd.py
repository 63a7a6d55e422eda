"""The students' checker names the known mistakes of C's fresh runs and logs at the course's lines and of D's
enumeration, in final grading's words: the labels and weights each mistake gives on the public inputs are recorded at
release as numbers, and a row whose outputs are all one mistake's says its sentence."""

from __future__ import annotations

import pytest

from autograder import paths
from autograder.student_kit.mistakes import catalogue_of
from tests.support.grading import copy_reference, mutate, write_submission
from tests.support.mutants import ALL
from tests.support.student_bundle import PROJECT_OF, expected_of, kit_line

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

CHECKS = ("C.fresh_runs", "C.diagnose_rules", "D.enumeration")
NAMED = [m for m in ALL if m.finding and m.check in CHECKS]


def test_every_planted_bug_of_these_checks_with_a_finding_is_listed():
    assert sorted((m.check, m.finding) for m in NAMED) == sorted(
        [("C.fresh_runs", f"C.fresh_runs.{name}") for name in ("always-untrained_critic", "critic-line-too-high",
                                                                 "value-based-always-faulty")]
        + [("C.diagnose_rules", f"C.diagnose_rules.{name}") for name in (
            "critic-before-policy", "td-pooled-over-log", "td-pooled-over-late-half", "variance-over-whole-run",
            "lines-swapped")]
        + [("D.enumeration", "D.weights.loo-includes-self"), ("D.enumeration", "D.weights.centred-without-mean")])


@pytest.mark.parametrize("mutant", NAMED, ids=[m.name for m in NAMED])
def test_the_checker_names_the_planted_bug_with_final_gradings_sentence(bundle, mutant, tmp_path):
    """The row's line as `capstone-check` prints it: one line ending with the sentence final grading's catalogue says
    (tests/test_mutants.py holds final grading to it)."""
    pid = PROJECT_OF[mutant.folder]
    root = copy_reference(tmp_path, mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    line = kit_line(bundle, root, pid, mutant.check)
    assert f"mistake recognised: {catalogue_of(pid)[mutant.finding].text}" in line, line
    assert "\n" not in line


def test_the_checker_names_nothing_on_the_reference_and_records_numbers_only(bundle):
    for cid in CHECKS:
        pid = cid[0]
        line = kit_line(bundle, paths.SOLUTIONS.parent / "solutions", pid, cid)
        assert "mistake recognised" not in line, line
        spec = expected_of(bundle, pid)[1]["checks"][cid]
        assert spec["mistakes"] and set(spec["findings"]) == set(spec["mistakes"])
        assert all(isinstance(x, (int, float)) for values in spec["mistakes"].values() for x in values)
    own = expected_of(bundle, "C")[1]["checks"]["C.own_labels"]
    assert "mistakes" not in own["probe"] and "findings" not in own["probe"]
