"""Cases drawn per seed draw every kind on every seed: what final grading's seeds can show a student's code, the
public seeds show it too, so the students' checker cannot predict a mark that a rarer draw later takes away."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared.ppo.cases import gae_cases
from autograder.projects.a_ppo.pieces import CORNERS, segment_case, surrogate_cases
from autograder.projects.c_diagnosis.boundary import BOUNDARIES
from autograder.projects.c_diagnosis.boundary import plan as boundary_plan
from autograder.projects.c_diagnosis.run_plan import AGENTS, fresh_plan
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.pieces import KL_BETAS, REGIONS, clip_cases, kl_cases
from autograder.projects.d_grpo.price import N_PROMPTS, PRICE_ROW_KINDS, price_cases
from autograder.projects.d_grpo.steps import STEP_CASES, reference_steps, step_inputs
from rlkit.categorical import log_prob
from rlkit.toy import HEDGE, group_draws, policy

COURSE = load_course(paths.COURSE_FILE, private=False)
PUBLIC = COURSE.seeds.public
CLIP_CASES = COURSE.projects["D"].checks["D.clip_gradient"].bar["cases"]
UNUSUAL = [4_000_000_000, 17, 123_456_789, 0]


def price_row_kind(logits, rewards, exploit) -> str:
    """What makes a row of D.price_exploit hard, read off the row itself (not from where it was drawn)."""
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    if np.any(disadvantage == 0):
        tied = gap[disadvantage == 0]
        return "logit tie earning " + ("the same" if np.all(tied == 0) else "more" if np.all(tied < 0) else "less")
    caps, floors = gap[disadvantage > 0] / disadvantage[disadvantage > 0], gap[disadvantage < 0] / disadvantage[
        disadvantage < 0]
    if len(caps) and len(floors) and floors.max() == caps.min():
        return "cap equals floor"
    return "other"


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_draws_every_kind_of_price_row(seed):
    rows = price_cases(seed)[N_PROMPTS:]
    assert len(rows) == len(PRICE_ROW_KINDS)
    read = [price_row_kind(*row) for row in rows]
    for kind, seen in zip(PRICE_ROW_KINDS, read):
        if kind.startswith("logit tie") or kind == "cap equals floor":
            assert seen == kind, (seed, kind, seen)
    prices = {kind: oracle.price_exploit(*row) for kind, row in zip(PRICE_ROW_KINDS, rows)}
    assert prices["logit tie earning the same"] == prices["logit tie earning more"] == 0.0
    assert prices["logit tie earning less"] > 0


def test_the_public_seeds_show_every_kind_a_grading_seed_can():
    kinds = {price_row_kind(*row) for seed in PUBLIC for row in price_cases(seed)[N_PROMPTS:]}
    drawn_elsewhere = {price_row_kind(*row) for seed in UNUSUAL for row in price_cases(seed)[N_PROMPTS:]}
    assert drawn_elsewhere <= kinds, drawn_elsewhere - kinds


def test_the_kind_reader_tells_a_tie_in_reward_from_one_that_earns_more():
    logits, rewards = np.array([0.0, 0.0, 1.0]), np.array([1.0, 1.0, 0.5])
    assert price_row_kind(logits, rewards, 0) == "logit tie earning the same"
    assert price_row_kind(logits, np.array([1.0, 1.125, 0.5]), 0) == "logit tie earning more"


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_draws_a_kl_group_of_one_and_every_beta(seed):
    cases = list(kl_cases(seed))
    assert [beta for *_, beta in cases] == list(KL_BETAS)
    assert {len(rewards) for rewards, *_ in cases} & {1}, "no group of one sample"
    assert any(len(rewards) > 1 for rewards, *_ in cases)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_draws_every_region_of_the_clip_and_a_single_sample_at_theta_old(seed):
    cases = list(clip_cases(seed, CLIP_CASES))
    assert {region for region, *_ in cases} == set(REGIONS)
    assert any(region == REGIONS[0] and len(ys) == 1 for region, _, _, ys, _, _ in cases)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_ends_episodes_both_ways_inside_every_gae_case(seed):
    for T, N, _, _, _, _, terminated, truncated in gae_cases(seed):
        inside = slice(1, T - 1) if T > 2 else slice(0, T)
        assert terminated[inside].any() and truncated[inside].any(), (seed, T, N)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_draws_every_kind_of_surrogate_case_and_a_batch_with_resets(seed):
    assert {kind for *_, kind in surrogate_cases(seed)} == {"at theta = theta_old", "beyond the clip, favourable side",
                                                            "mixed ratios"}
    segment, _, _ = segment_case(seed)
    assert segment.terminated.any() and (~segment.valid).any()  # episodes end, and reset steps follow


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_mixed_surrogate_case_has_a_small_advantage_in_each_corner_beyond_the_clip(seed):
    """A > 0 and A < 0, each with a ratio above 1 + eps and below 1 - eps, at |A| < 1: a test of the advantage's sign
    written as one of its size (A > 1) is caught on the public seeds as on any other."""
    for logits, actions, old, advantages, eps, kind in surrogate_cases(seed):
        if kind != "mixed ratios":
            continue
        rho = np.exp(log_prob(logits, actions) - old)
        small = np.abs(advantages) < 1
        for sign, side in CORNERS:
            beyond = rho > 1 + eps if side > 0 else rho < 1 - eps
            assert np.any(small & (np.sign(advantages) == sign) & beyond), (seed, sign, side)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_holds_every_fresh_agent_and_every_boundary_log(seed):
    assert sorted((run.label, run.severity) for run in fresh_plan(seed)) == sorted(AGENTS)
    assert sorted(b.name for b in boundary_plan(seed)) == sorted(b.name for b in BOUNDARIES)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_step_with_a_kl_penalty_samples_the_hedge_beside_another_response(seed):
    """Only there does p_ref differ within a group, so only there can a penalty that mishandles p_ref show."""
    for i, ((K, _, beta, *_), theta) in enumerate(zip(STEP_CASES, step_inputs(seed))):
        if beta:
            groups = group_draws(policy(theta), K, np.random.default_rng(seed + i))
            assert any(np.any(ys == HEDGE) and np.any(ys != HEDGE) for ys in groups), (seed, i)


@pytest.mark.parametrize("seed", PUBLIC)
def test_a_penalty_with_the_log_of_the_product_changes_the_steps_on_every_public_seed(seed, monkeypatch):
    """log(p * p_ref) for log(p / p_ref) differs by a term in p_ref alone, which the group weight cancels unless a
    group mixes the hedge with other responses; seeds 7 and 8 drew no such group before the steps' thetas hedged."""
    wants = reference_steps(seed)
    monkeypatch.setattr(oracle, "kl_penalized", lambda r, p, p_ref, beta: r - beta * np.log(p * p_ref))
    departing = [i for i, (got, want) in enumerate(zip(reference_steps(seed), wants))
                 if np.abs(got - want).max() > 1e-6]
    assert departing == [i for i, case in enumerate(STEP_CASES) if case[2]]


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_every_seed_holds_a_small_advantage_in_each_corner_beyond_the_clip_of_d(seed):
    """A > 0 and A < 0, each with a ratio above 1 + eps and below 1 - eps, at |A| < 1: D's clip written with A > 1
    for A > 0 once passed on seed 7, whose samples held no small advantage on the favourable side."""
    corners = set()
    for _, pi, pi_old, ys, A, eps in clip_cases(seed, CLIP_CASES):
        rho = pi[ys] / pi_old[ys]
        for sign, side in CORNERS:
            beyond = rho > 1 + eps if side > 0 else rho < 1 - eps
            if np.any((np.abs(A) < 1) & (np.sign(A) == sign) & beyond):
                corners.add((sign, side))
    assert corners == set(CORNERS), (seed, set(CORNERS) - corners)


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL])
def test_a_clip_that_tests_the_advantage_against_1_departs_on_every_seed(seed):
    def written_with_a_size(pi_x, pi_old_x, ys, A, eps):
        rho = pi_x[ys] / pi_old_x[ys]
        clipped = ((A > 1) & (rho > 1 + eps)) | ((A < 0) & (rho < 1 - eps))
        return (np.eye(len(pi_x))[ys] - pi_x).T @ np.where(clipped, 0.0, rho * A) / len(ys)

    assert any(not np.allclose(written_with_a_size(*case), oracle.clipped_gradient(*case), atol=1e-9)
               for _, *case in clip_cases(seed, CLIP_CASES))


def rounded_rows(seed: int) -> int:
    """Rows of B.switches' update whose value clip does not bind but whose clipped branch is the larger by rounding,
    in the first minibatch (read off the batch and the critic, not from where they were made)."""
    from autograder.projects.b_ablations.switches import update_config, update_inputs
    from rlkit.nn import mlp_forward

    agent, batch = update_inputs(seed)
    c = update_config(seed)
    n = len(batch["actions"])
    first = np.random.default_rng(seed).permutation(n)[:n // c["minibatches"]]
    v, old, r = mlp_forward(agent["critic"], batch["obs"][first])[0][:, 0], batch["values"][first], \
        batch["returns"][first]
    clipped = old + np.clip(v - old, -c["clip_eps"], c["clip_eps"])
    return int((((clipped - r) ** 2 > (v - r) ** 2) & (np.abs(v - old) < c["clip_eps"])).sum())


@pytest.mark.parametrize("seed", [*PUBLIC, *UNUSUAL, 1, 3])
def test_every_seed_holds_value_clip_rows_whose_clipped_branch_wins_by_rounding(seed):
    """Seeds 7, 1 and 3 held none before: a gradient of the clipped branch without the return passed there and lost
    a switch on grading seeds 101 and 102."""
    assert rounded_rows(seed) >= 2


def test_a_clipped_branch_gradient_without_the_return_loses_its_switch_on_the_smallest_public_seed(tmp_path):
    from tests.support.grading import copy_reference, grade_checks, write_submission
    from tests.support.mutations import generate

    [mutant] = [m for m in generate("B") if m.id == "B.clipped_value_loss.drop_term.L88C34.1"]
    assert mutant.change == "clipped - returns -> clipped"  # in the gradient
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutant.source, mutant.folder, mutant.module)
    row = grade_checks(root, COURSE, ["B.switches"], seed_set="public")["B.switches"]
    assert row["score"] == pytest.approx(6 * 8 / 9, abs=0.01), row["message"]
    assert "clip_value_loss: flipped, ppo_update changes, but not as the reference's does" in row["message"]
