"""A fixed sample of the generated mutants the kit lists as equivalent (tests/support/equivalent_mutants.py) still
keeps full marks: graded from a copy of the reference's folder, on the public seeds, as benchmarks/mutant_survivors.py
grades every mutant. C's and D's are graded on every check of their project; A's and B's on their quick checks only
(their costly checks train for 20 to 40 s a mutant; the benchmark grades those). About 45 s in all."""

import pytest

from tests.support.equivalent_mutants import EQUIVALENT, key
from tests.support.mutations import generate
from tests.support.survivors import graded_rows, lost, split_checks

pytestmark = pytest.mark.slow  # grades whole projects: `make test-fast` leaves it out

WHOLE = {"C", "D"}  # projects whose sample is graded on every check
SAMPLE = [next(e for e in EQUIVALENT if e.project == project) for project in "ABCD"
          if any(e.project == project for e in EQUIVALENT)]  # the first listed entry of each project


@pytest.mark.parametrize("entry", SAMPLE, ids=[f"{e.project}.{e.function}: {e.change}" for e in SAMPLE])
def test_a_listed_equivalent_mutant_keeps_full_marks(entry, course):
    [mutant] = [m for m in generate(entry.project) if key(m) == entry[:5]]
    quick, costly = split_checks(entry.project, course)
    checks = quick + costly if entry.project in WHOLE else quick
    rows = graded_rows(mutant, course, "public", checks)
    assert sorted(rows) == sorted(checks)
    assert not lost(rows), {cid: rows[cid]["message"] for cid in lost(rows)}
