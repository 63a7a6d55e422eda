"""C.fresh_runs' score weighs every kind of run the same (``share_right``, final grading's and the students' checker's
one rule): a `diagnose` wrong on whole kinds gets one score whichever runs, and how many of each kind, a draw of
grading seeds holds or grades."""

from __future__ import annotations

from collections import Counter

import pytest

from autograder.projects.c_diagnosis.public.diagnose import verdict_of
from autograder.projects.c_diagnosis.public.diagnose import share_right

KINDS = [(label, severity) for label in ("saturated_policy", "untrained_critic", "small_replay_buffer", "healthy")
         for severity in (1, 2)]


def tally(runs_per_kind: list[int], said) -> Counter:
    """Runs of each kind (``runs_per_kind`` of them), each labelled ``said(truth)``."""
    return Counter({(truth, severity, said(truth)): n for (truth, severity), n in zip(KINDS, runs_per_kind) if n})


@pytest.mark.parametrize("said, score", [(lambda truth: "healthy", 2 / 8),  # one label for every run
                                         (lambda truth: truth, 1.0),
                                         (lambda truth: "untrained_critic" if truth == "saturated_policy" else truth,
                                          6 / 8)])
def test_a_diagnose_wrong_on_whole_kinds_gets_one_score_however_many_runs_are_graded(said, score):
    draws = [[3] * 8, [3, 2, 3, 1, 3, 3, 2, 3], [1, 3, 2, 3, 3, 1, 3, 2]]
    assert [verdict_of(tally(draw, said)).fraction for draw in draws] == pytest.approx([score] * 3)


def test_every_kind_weighs_the_same_and_a_mixed_kind_by_its_share():
    runs = [(("healthy", 1), True)] * 3 + [(("saturated_policy", 1), False)] + [(("healthy", 2), True),
                                                                                   (("healthy", 2), False)]
    assert share_right(runs) == pytest.approx((1 + 0 + 0.5) / 3)
    assert share_right([]) == 1.0


def test_counted_per_run_the_score_would_move_with_the_draw():
    """What the rule replaced: per run, the one-label `diagnose` scored 0.25 on one draw and 0.28 on another."""
    def per_run(counts: Counter) -> float:
        return sum(n for (truth, _, label), n in counts.items() if truth == label) / sum(counts.values())

    one_label = lambda truth: "healthy"  # noqa: E731
    assert (per_run(tally([3] * 8, one_label)), round(per_run(tally([1, 3, 2, 3, 3, 1, 3, 2], one_label)), 2)) == (
        0.25, 0.28)


def test_a_kind_labelled_both_ways_is_said_to_turn_on_the_draw_and_a_whole_kind_is_not():
    mixed = tally([3] * 8, lambda truth: truth) + Counter({("healthy", 2, "small_replay_buffer"): 1})
    said = verdict_of(mixed).message
    assert said.endswith("; 1 kind of run labelled both ways, whose share another draw of seeds may change"), said
    assert "both ways" not in verdict_of(tally([3] * 8, lambda truth: "healthy")).message
