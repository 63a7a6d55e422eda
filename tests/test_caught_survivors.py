"""Generated mutants that once kept full marks, each a real mistake, now lose the check that reads what they change.
Graded as benchmarks/mutant_survivors.py grades them (a copy of the reference's folder with the one module changed, on
the public seeds), on that check alone. Each is picked by project, function, change and the reference's line, never
by an id's line number, which moves when a line above it is edited."""

import dataclasses

import pytest

from tests.support.equivalent_mutants import explained, key
from tests.support.mutations import SOLUTIONS, generate
from tests.support.survivors import graded_rows, lost

A_NORMALIZATION = "adv = (adv - adv.mean()) / (adv.std() + 1e-8)"
A_EPOCH_TEST = "if epoch < config.epochs - 1:"
B_NORMALIZATION = A_NORMALIZATION
B_LOSS = "return 0.5 * np.maximum(plain_sq, clipped_sq).mean(), grad / len(values)"
B_LOG_RHO = 'log_rho = log_softmax(logits)[np.arange(len(idx)), batch["actions"][idx]] - batch["logp"][idx]'
B_STATS = "kl, clip_fraction, H, v_loss = np.mean(stats, axis=0)"

CAUGHT = [  # (project, function, change, the reference's line, the check that now fails it)
    # a first minibatch of nearly equal advantages: the normalization's epsilon decides its scale
    ("A", "ppo_update", "adv.std() + 1e-08 -> adv.std()", A_NORMALIZATION, "A.update"),
    ("A", "ppo_update", "1e-08 -> 2e-08", A_NORMALIZATION, "A.update"),
    ("A", "ppo_update", "1e-08 -> 0.0", A_NORMALIZATION, "A.update"),
    # one epoch returns no statistics: the ladder's one-epoch rungs are graded calls
    ("A", "ppo_update", "config.epochs - 1 -> 1", A_EPOCH_TEST, "A.update"),
    ("B", "ppo_update", "adv.std() + 1e-08 -> adv.std()", B_NORMALIZATION, "B.switches"),
    ("B", "ppo_update", "adv.std() + 1e-08 -> adv.std() - 1e-08", B_NORMALIZATION, "B.switches"),
    ("B", "ppo_update", "1e-08 -> 2e-08", B_NORMALIZATION, "B.switches"),
    # the value loss clipped_value_loss returns is the statistic ppo_update returns as value_loss
    ("B", "clipped_value_loss", "0.5 -> 1.0", B_LOSS, "B.switches"),
    ("B", "clipped_value_loss", "np.maximum -> np.minimum", B_LOSS, "B.switches"),
    ("B", "clipped_value_loss", "np.maximum(plain_sq, clipped_sq).mean -> np.maximum(plain_sq, clipped_sq).sum", B_LOSS,
     "B.switches"),
    # the statistics ppo_update returns under each setting
    ("B", "ppo_update", "0 -> None", B_STATS, "B.switches"),
    ("B", "ppo_update", "np.mean -> np.sum", B_STATS, "B.switches"),
    ("B", "ppo_update", "log_softmax(logits)[np.arange(len(idx)), batch['actions'][idx]] - batch['logp'][idx] -> "
     "log_softmax(logits)[np.arange(len(idx)), batch['actions'][idx]] + batch['logp'][idx]", B_LOG_RHO, "B.switches"),
]


def mutant_of(project: str, function: str, change: str, line: str):
    found = [m for m in generate(project) if key(m)[:4] == (project, function, change, line)]
    assert len(found) == 1, f"the generator no longer makes {project}.{function}: {change} (found {len(found)})"
    return found[0]


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
