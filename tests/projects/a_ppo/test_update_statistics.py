"""What ppo_update returns is graded whole: every statistic A's README names is one A.update compares, the reference's
statistics are the oracle's on every seed, each known mistake of them departs on every seed, the ladder's rungs show
what they say, and explained_variance's cases reach its constant target on every seed."""

import importlib.util
import re

import numpy as np
import pytest

from autograder import paths
from autograder.projects._shared.ppo import oracle
from autograder.projects.a_ppo import pieces, update
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects._shared.public import ppo_statistics
from rlkit.nn import Adam, flatten
from tests.support.mutations import generate
from tests.support.survivors import graded_rows

SEEDS = [0, 7, 17, 101, 123_456_789, 4_000_000_000, 2**32 - 1]
TOLERANCE = 1e-7  # A.update's, course.yml


def reference_ppo():
    spec = importlib.util.spec_from_file_location("reference_a_ppo", paths.SOLUTIONS / "A_ppo" / "ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readme_statistics(readme: str) -> set[str]:
    """The keys A's README says ppo_update returns: the quoted names in the braces of its paragraph's "Return"."""
    section = readme[readme.index("**`ppo_update("):]
    section = section[:section.index("**`", len("**`ppo_update("))]
    returned = re.search(r"Return `\{([^}]*)\}`", section)
    assert returned, "A's README no longer says what ppo_update returns in the form this test reads"
    return set(re.findall(r'"(\w+)"', returned.group(1)))


@pytest.mark.parametrize("folder", [paths.SOLUTIONS, paths.ASSIGNMENTS])
def test_every_statistic_the_readme_names_is_one_a_update_compares(folder):
    named = readme_statistics((folder / "A_ppo" / "README.md").read_text())
    assert named and named <= set(ppo_statistics.STATISTICS), named - set(ppo_statistics.STATISTICS)


def test_every_key_the_reference_returns_is_one_a_update_compares():
    agent, batch = update.update_inputs(0)
    module = reference_ppo()
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=update.UPDATE_LR)
    returned = module.ppo_update(agent, optimizer, batch, module.Config(**update.UPDATE_CONFIG),
                                 np.random.default_rng(0))
    assert set(returned) == set(ppo_statistics.STATISTICS)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_references_statistics_are_the_oracles_on_every_seed(seed):
    agent, batch = update.update_inputs(seed)
    module = reference_ppo()
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=update.UPDATE_LR)
    returned = module.ppo_update(agent, optimizer, batch, module.Config(**update.UPDATE_CONFIG),
                                 np.random.default_rng(seed))
    want = update.reference_statistics(seed)
    assert ppo_statistics.wrong(ppo_statistics.read(returned), want, TOLERANCE) == []
    low, high = want["clip_fraction"]
    # no ratio within rounding of the clip's edge, and some beyond it (how many turns on the seed: the ladder's fixed
    # ratios, graded too, hold a share beyond the clip on every seed)
    assert low == high > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_every_known_mistake_of_the_statistics_departs_on_every_seed(seed):
    want = update.reference_statistics(seed)
    variants = update.statistics_variants(seed)
    assert set(variants) == {m.id for m in MISTAKES.values() if m.piece == "ppo_update.statistics"}
    for mid, values in variants.items():
        assert values is not None, mid
        assert ppo_statistics.wrong(dict(zip(ppo_statistics.STATISTICS, values)), want, 1000 * TOLERANCE), mid


def test_the_first_rung_shows_statistics_of_its_starting_ratios_alone():
    """One epoch of one minibatch: the statistics are those of the ratios the rung's text shows, whatever the step."""
    rho = np.array(ppo_statistics.RATIOS[:4])
    first = update.rung_statistics()[0]
    assert first["approx_kl"] == pytest.approx(np.mean((rho - 1) - np.log(rho)), rel=1e-9)
    assert first["clip_fraction"] == [0.5, 0.5]
    assert ppo_statistics.rung_text(*ppo_statistics.RUNGS[0]).startswith(
        "ppo_update on 4 samples whose ratios start at [0.7, 0.95, 1.1, 1.4], clip_eps 0.2, 1 epoch of 1 minibatch")


def test_each_rung_tells_a_sum_over_the_epoch_or_the_first_epoch_from_the_right_statistics():
    """The second rung's two minibatches tell a sum over the epoch from a mean, the third's second epoch the last
    epoch's statistics from the first's."""
    wants = update.rung_statistics()
    for rung, want in zip(ppo_statistics.RUNGS[1:], wants[1:]):
        agent, batch, values = ppo_statistics.rung_case(*rung)
        records: list = []
        oracle.ppo_update(agent, ppo_statistics.rung_optimizer(agent), batch, values, np.random.default_rng(0),
                          records=records)
        summed = MISTAKES["A.update.statistics-summed"].variant(records, values["clip_eps"])
        assert ppo_statistics.wrong(dict(zip(ppo_statistics.STATISTICS, summed)), want, TOLERANCE)
    one_epoch = update.rung_statistics()[1]  # the same 8 samples and minibatches, one epoch
    assert ppo_statistics.wrong({k: v if k != "clip_fraction" else v[0] for k, v in one_epoch.items()}, wants[2],
                              TOLERANCE)


@pytest.mark.parametrize("seed", SEEDS)
def test_explained_variance_cases_hold_a_constant_target_that_an_unguarded_division_gets_wrong(seed):
    cases = list(pieces.variance_cases(seed))
    kinds = [kind for kind, _, _ in cases]
    assert pieces.CONSTANT_TARGET in kinds and "a perfect critic" in kinds and "a constant critic" in kinds
    for kind, predicted, target in cases:
        want = oracle.explained_variance(predicted, target)
        if kind == pieces.CONSTANT_TARGET:
            assert np.var(target) == 0 and np.var(predicted) > 0 and np.isnan(want)
            with np.errstate(divide="ignore"):
                assert np.isinf(1 - np.var(target - predicted) / np.var(target))
        else:
            assert np.isfinite(want)
    assert oracle.explained_variance(cases[1][1], cases[1][2]) == 1.0
    assert abs(oracle.explained_variance(cases[2][1], cases[2][2])) < 1e-12


@pytest.mark.parametrize("seed", SEEDS)
def test_explained_variance_cases_hold_a_target_whose_variance_lies_between_0_and_1(seed):
    """A guard against any variance up to 1 (a mutant of the kit's generator kept full marks on it) is told from the
    README's guard against a zero variance: its NaN differs from the oracle's finite value there."""
    small = [(predicted, target) for kind, predicted, target in pieces.variance_cases(seed)
             if 0 < np.var(target) < 1]
    assert small, "no target whose variance lies between 0 and 1"
    assert all(np.isfinite(oracle.explained_variance(predicted, target)) for predicted, target in small)


def test_a_guard_against_any_variance_up_to_1_fails_its_check(course):
    [mutant] = [m for m in generate("A") if m.id.startswith("A.explained_variance.") and m.change == "0 -> 1"
                and "if variance > 1 else" in m.source]
    row = graded_rows(mutant, course, "public", ["A.value_entropy"])["A.value_entropy"]
    assert not row["passed"] and "explained_variance (a target of small spread)" in row["message"], row["message"]
