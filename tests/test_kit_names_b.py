"""The students' checker names Project B's known mistakes on B.switches and B.summary: a planted bug whose finding is
one of theirs fails the row, and its message says the catalogue's sentence that final grading says (the bug's own
finding, asserted in tests/test_mutants.py); on the reference it names none, and the check records numbers only."""

from __future__ import annotations

import pytest

from autograder import paths
from autograder.projects.b_ablations.mistakes import MISTAKES
from tests.support.student_bundle import expected_of, kit_result, planted
from tests.support.mutants import ALL

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

CHECKS = ("B.switches", "B.summary")
NAMED = [m for m in ALL if m.folder == "B_ablations" and m.finding and m.check in CHECKS]


@pytest.mark.parametrize("mutant", NAMED, ids=[m.name for m in NAMED])
def test_the_bundle_names_a_planted_bug_of_bs_switches_and_summary_with_final_gradings_finding(
        bundle, mutant, tmp_path):
    result = kit_result(bundle, planted(tmp_path, mutant), "B", mutant.check)
    assert result["fraction"] < 1
    assert MISTAKES[mutant.finding].text in result.get("named", []), result  # beside the row's message, not in it


@pytest.mark.parametrize("cid", CHECKS)
def test_the_bundle_names_no_mistake_of_bs_switches_and_summary_on_the_reference_and_records_numbers(bundle, cid):
    result, spec = (kit_result(bundle, paths.SOLUTIONS.parent / "solutions", "B", cid),
                    expected_of(bundle, "B")[1]["checks"][cid])
    assert result["fraction"] == 1 and "named" not in result, result
    assert spec["mistakes"] and set(spec["parts"]) == set(spec["mistakes"]) <= set(spec["findings"])
    assert all(isinstance(x, float) for values in spec["mistakes"].values() for x in values)
    assert {mid: MISTAKES[mid].text for mid in spec["findings"]} == spec["findings"]
