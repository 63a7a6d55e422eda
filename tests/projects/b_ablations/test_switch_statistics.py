"""B's ppo_update returns "the same statistics dict as Project A's" (B's README): B.switches compares every one of
them under each setting, with the rule A.update uses, so a value loss or a statistic written wrong loses the switch
whose setting shows it."""

import re

from autograder import paths
from autograder.projects.b_ablations import switches
from autograder.projects.b_ablations.catalogue import flipped
from autograder.projects._shared.public import ppo_statistics
from autograder.projects.b_ablations.public.settings import STATISTICS, switch_problem

SEED = 2**32 - 1


def test_b_refers_its_statistics_to_a_and_a_names_the_ones_b_switches_compares():
    b_readme = (paths.SOLUTIONS / "B_ablations" / "README.md").read_text(encoding="utf-8")
    assert "the same statistics dict as Project A's" in b_readme
    a_readme = (paths.SOLUTIONS / "A_ppo" / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r'"(\w+)"', re.search(r"Return `\{([^}]*)\}`", a_readme).group(1)))
    want = switches.outputs(SEED, flipped(None), switches.oracle_run(SEED))
    assert named == set(want[STATISTICS]) == set(ppo_statistics.STATISTICS)


def test_a_statistic_alone_off_the_reference_fails_the_switch_whose_setting_shows_it():
    run = switches.oracle_run(SEED)
    want = {label: switches.outputs(SEED, d, run) for label, d in switches.settings()}
    got = {label: {**outputs, STATISTICS: dict(outputs[STATISTICS])} for label, outputs in want.items()}
    for outputs in got.values():  # the student's statistics come back as numbers; the reference's clip fraction is
        low, high = outputs[STATISTICS]["clip_fraction"]  # the least and the most it may be
        outputs[STATISTICS]["clip_fraction"] = (low + high) / 2
    assert switch_problem(got, want, "clip_value_loss", "update", "ppo_update", 1e-6) is None
    got["clip_value_loss"][STATISTICS]["value_loss"] *= 2
    assert switch_problem(got, want, "clip_value_loss", "update", "ppo_update", 1e-6) == (
        "flipped, ppo_update changes, but not as the reference's does (the statistics it returns: value_loss)")
