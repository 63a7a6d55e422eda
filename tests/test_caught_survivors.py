"""Generated mutants that once kept full marks, each a real mistake, now lose the check that reads what they change.
Graded as benchmarks/mutant_survivors.py grades them (a copy of the reference's folder with the one module changed, on
the public seeds), on that check alone. Each is picked by project, function, change and the reference's line, never
by an id's line number, which moves when a line above it is edited."""

import dataclasses

import pytest

from tests.support.caught_survivors import A_EPOCH_TEST, B_LOSS, CAUGHT, mutant_of
from tests.support.equivalent_mutants import explained
from tests.support.mutations import SOLUTIONS
from tests.support.survivors import graded_rows, lost


@pytest.mark.parametrize("project, function, change, line, check", CAUGHT,
                         ids=[f"{p}.{f}: {c[:40]}" for p, f, c, _, _ in CAUGHT])
def test_a_survivor_of_an_earlier_round_loses_the_check_that_reads_it(project, function, change, line, check,
                                                                      course):
    mutant = mutant_of(project, function, change, line)
    assert explained(mutant) is None, "a real mistake, never on the list of equivalent mutants"
    rows = graded_rows(mutant, course, "public", [check])
    assert lost(rows) == [check], rows[check]["message"]


def test_a_ppo_update_that_returns_no_statistics_for_one_epoch_is_told_where(course):
    rows = graded_rows(mutant_of("A", "ppo_update", "config.epochs - 1 -> 1", A_EPOCH_TEST), course, "public",
                       ["A.update"])
    assert "ppo_update raised on a smaller update" in rows["A.update"]["message"]
    assert "1 epoch of 1 minibatch" in rows["A.update"]["message"]


def test_a_switch_whose_statistics_alone_depart_says_which(course):
    rows = graded_rows(mutant_of("B", "clipped_value_loss", "0.5 -> 1.0", B_LOSS), course, "public", ["B.switches"])
    assert "clip_value_loss: flipped, ppo_update changes, but not as the reference's does (the statistics it " \
           "returns: value_loss)" in rows["B.switches"]["message"]


def test_the_reference_keeps_both_checks(course):
    for project, function, change, line, check in (CAUGHT[0], CAUGHT[4]):
        mutant = mutant_of(project, function, change, line)
        reference = dataclasses.replace(mutant, source=(SOLUTIONS / mutant.folder / mutant.module).read_text())
        assert not lost(graded_rows(reference, course, "public", [check]))
