"""The reviewed list of generated mutants no input can tell from the reference (tests/support/equivalent_mutants.py)
cannot rot: every entry still names a mutant the generator makes, once, with a one-line reason."""

from collections import Counter
from dataclasses import replace

import pytest

from tests.support.equivalent_mutants import EQUIVALENT, explained, key
from tests.support.mutations import MODULES, generate


@pytest.fixture(scope="module")
def keyed():
    """Every generated mutant of every project, by its list key."""
    return Counter(key(mutant) for project in MODULES for mutant in generate(project))


def test_every_entry_names_one_mutant_the_generator_makes(keyed):
    for entry in EQUIVALENT:
        assert keyed[entry[:5]] == 1, f"{entry[:5]} matches {keyed[entry[:5]]} generated mutants, expected one"


def test_every_entry_has_a_one_line_reason_and_appears_once():
    assert len({entry[:5] for entry in EQUIVALENT}) == len(EQUIVALENT)
    for entry in EQUIVALENT:
        assert entry.project in MODULES, entry
        assert entry.reason.strip() and "\n" not in entry.reason, entry


def test_a_listed_mutant_is_explained_and_a_changed_one_is_not():
    if not EQUIVALENT:
        pytest.skip("the list is empty")
    entry = EQUIVALENT[0]
    [mutant] = [m for m in generate(entry.project) if key(m) == entry[:5]]
    assert explained(mutant) == entry.reason
    assert explained(replace(mutant, change=f"{mutant.change} + 0")) is None
