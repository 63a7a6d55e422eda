"""Every realistic bug costs the check it breaks, on every seed: the unit checks' inputs reach every branch of the
piece they grade (docs/check-coverage.md), credit is all or nothing unless course.yml says per_case, a cascade names
its cause, and messages say what, where, and a hint only when it is specific."""

import numpy as np
import pytest

from autograder import paths
from autograder.config import load_course
from autograder.projects._shared.ppo import oracle as a_oracle
from autograder.projects._shared.ppo.cases import gae_cases, update_case
from autograder.projects.a_ppo.update import RETURN_SCALE, UPDATE_CONFIG, UPDATE_LR
from autograder.projects.b_ablations.crafted import score_cases, separated, verdicts
from autograder.projects.c_diagnosis import oracle as c_oracle
from autograder.projects.c_diagnosis.boundary import BOUNDARIES, QUIET, build, late, late_variance, relative
from autograder.projects.c_diagnosis.fresh import fresh_logs, unbundle
from autograder.projects.c_diagnosis.pieces import td_cases
from autograder.projects.c_diagnosis.run_plan import fresh_plan
from autograder.projects.d_grpo import oracle as d_oracle
from autograder.projects.d_grpo.steps import STEP_CASES, price_cases, reference_step, step_inputs, step_kwargs
from conftest import copy_reference, grade_checks, mutate, write_submission
from mutants import ALL
from rlkit.categorical import log_softmax
from rlkit.nn import Adam, flatten
from test_config import course_file, error_of

SEEDS = [0, 7, 17, 101, 123_456_789, 4_000_000_000, 2**32 - 1]


def traced_update(seed: int, monkeypatch) -> tuple[list[float], list[float]]:
    """A.update's reference update on ``seed``: the joint gradient norm before clipping, and the share of clipped
    surrogate terms, of every minibatch."""
    norms, clipped = [], []
    clip, surrogate = a_oracle.clip_by_global_norm, a_oracle.clipped_surrogate

    def clip_traced(grads, max_norm):
        grads, norm = clip(grads, max_norm)
        norms.append(norm)
        return grads, norm

    def surrogate_traced(logits, actions, logp_old, adv, eps):
        rho = np.exp(log_softmax(logits)[np.arange(len(actions)), actions] - logp_old)
        clipped.append(float(np.mean(((adv > 0) & (rho > 1 + eps)) | ((adv < 0) & (rho < 1 - eps)))))
        return surrogate(logits, actions, logp_old, adv, eps)

    monkeypatch.setattr(a_oracle, "clip_by_global_norm", clip_traced)
    monkeypatch.setattr(a_oracle, "clipped_surrogate", surrogate_traced)
    agent, batch = update_case(seed, RETURN_SCALE)
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
    a_oracle.ppo_update(agent, optimizer, batch, UPDATE_CONFIG, np.random.default_rng(seed))
    return norms, clipped


@pytest.mark.parametrize("seed", SEEDS)
def test_a_update_makes_global_norm_clipping_bind_and_ratios_leave_the_clip_range(seed, monkeypatch):
    norms, clipped = traced_update(seed, monkeypatch)
    assert max(norms) > 1.5 * UPDATE_CONFIG["max_grad_norm"], norms
    assert max(clipped) > 0.05, clipped


@pytest.mark.parametrize("seed", SEEDS)
def test_every_gae_case_holds_a_termination_and_a_truncation_inside_the_segment(seed):
    for T, _, gamma, lam, rewards, values, terminated, truncated in gae_cases(seed):
        inner = slice(1, T - 1) if T > 2 else slice(0, T)
        assert (terminated[inner] & ~truncated[inner]).any() and (truncated[inner] & ~terminated[inner]).any()
        as_termination = a_oracle.gae(rewards, values, terminated | truncated, np.zeros_like(truncated), gamma, lam)
        assert not np.allclose(as_termination, a_oracle.gae(rewards, values, terminated, truncated, gamma, lam))


def price_ignoring_the_floor(logits, rewards, exploit):
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    if np.any((disadvantage >= 0) & (gap <= 0)):
        return 0.0
    return float(np.min(gap[disadvantage > 0] / disadvantage[disadvantage > 0], initial=np.inf))


@pytest.mark.parametrize("seed", SEEDS)
def test_price_rows_hold_floors_that_bind_and_floors_that_do_not(seed):
    unseen = price_cases(seed)[4:]
    prices = [(d_oracle.price_exploit(*row), price_ignoring_the_floor(*row)) for row in unseen]
    assert sum(want == 0 < ignored for want, ignored in prices) >= 2
    assert sum(0 < want == ignored < np.inf for want, ignored in prices) >= 2


@pytest.mark.parametrize("seed", SEEDS)
def test_grpo_step_cases_pass_weights_and_beta_that_change_the_step(seed):
    assert {case[6] for case in STEP_CASES} >= {None, "centred", "leave-one-out"}
    for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(seed))):
        kwargs = step_kwargs(case)
        want = reference_step(seed, i, theta, kwargs)
        if case[2] > 0:  # beta: a flipped KL sign changes the step
            assert not np.allclose(want, reference_step(seed, i, theta, {**kwargs, "beta": -case[2]}))
        if case[6]:  # a weight= other than the default: ignoring it changes the step
            assert not np.allclose(want, reference_step(seed, i, theta, {**kwargs, "weight": d_oracle.standardized}))


def graded_mutant(tmp_path, course, name: str, checks: list[str], seed_set: str = "public") -> dict:
    mutant = next(m for m in ALL if m.name == name)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    return grade_checks(root, course, checks=checks, seed_set=seed_set)


def test_credit_is_all_or_nothing_for_unit_checks_and_per_case_where_course_yml_says(tmp_path, course):
    assert graded_mutant(tmp_path / "a", course, "flipped KL sign", ["D.kl_penalty"])["D.kl_penalty"]["score"] == 0
    path = course_file(tmp_path, lambda d: d["projects"]["D"]["checks"]["D.kl_penalty"].update(credit="per_case",
                                                                                               points=1.5))
    shared = graded_mutant(tmp_path / "b", load_course(path, private=False), "flipped KL sign", ["D.kl_penalty"])
    assert shared["D.kl_penalty"]["score"] == 0.3  # 1.5 points x 1/5 cases (beta = 0), rounded to two decimals
    assert load_course(paths.COURSE_FILE, private=False).projects["A"].checks["A.bar"].credit == "per_case"


def test_an_unknown_credit_is_named(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"]["D"]["checks"]["D.weights"].update(
        credit="per_seed")))
    assert "projects.D.checks.D.weights.credit" in message and "per_seed" in message


def test_a_cascade_names_the_piece_that_made_the_nan(tmp_path, course):
    results = graded_mutant(tmp_path, course, "standardized weight without + 1e-8 (NaN for equal rewards)",
                            ["D.grpo_step", "D.k_sweep"])
    for result in results.values():
        assert result["score"] == 0 and "`group_standardized_weight`([1, 1, 1, 1]) returned [nan" in result["message"]


def test_grpo_step_names_the_flipped_sign_once_without_explaining_clipping(tmp_path, course):
    message = graded_mutant(tmp_path, course, "grpo_step flips the KL sign", ["D.grpo_step"])["D.grpo_step"]["message"]
    assert message.startswith("hint: every failing case matches a step in which the KL penalty's sign is flipped")
    assert "clip" not in message and "ratio" not in message


def test_kl_penalty_gives_its_hint_once(tmp_path, course):
    message = graded_mutant(tmp_path, course, "flipped KL sign", ["D.kl_penalty"])["D.kl_penalty"]["message"]
    assert message.count("hint") == 1 and message.count("expected r - beta*log(p/p_ref)") >= 2


def test_batch_values_one_step_late_are_shown_with_numbers(tmp_path, course):
    message = graded_mutant(tmp_path, course, "batch values are V(s_{t+1})", ["A.batch"])["A.batch"]["message"]
    assert "row 0 is" in message and "expected" in message and "V(s_{t+1})" in message


def test_a_ratio_grades_importance_ratio_when_ppo_update_is_a_stub(tmp_path, course):
    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    body = reference[reference.index("    ### BEGIN SOLUTION\n    B = len(batch"):reference.index(
        "    ### END SOLUTION\n\n\ndef explained_variance")]
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, reference.replace(body, "    raise NotImplementedError\n"), "A_ppo", "ppo.py")
    message = grade_checks(root, course, checks=["A.ratio"])["A.ratio"]["message"]
    assert message.startswith("importance_ratio is right; the ratio on ppo_update's first minibatch could not be read")


# ------------------------------------------------------------------ issue 32: inputs that tell neighbours apart


@pytest.mark.parametrize("seed", SEEDS)
def test_b_summary_scores_separate_the_bar_from_each_neighbour(seed):
    scores, factors = score_cases(seed)
    assert all(np.mean(row) != np.median(row) for row in scores.values())  # asymmetric rows
    assert any(np.ptp(scores[f]) > np.ptp(scores["baseline"]) for f in factors)  # an ablated row wider
    assert {True, False} <= set(verdicts(scores, factors))
    missed = [neighbour for neighbour, rows in separated(scores, factors).items() if not rows]
    assert not missed, missed


@pytest.mark.parametrize("seed", SEEDS)
def test_td_cases_hold_q_values_of_both_signs(seed):
    gaps = [np.abs(q).mean() - abs(q.mean()) for _, q, _, _ in td_cases(seed)]
    assert max(gaps) > 0.1 * min(np.abs(q).mean() for _, q, _, _ in td_cases(seed))


def price_variant(logits, rewards, exploit, tie_counts: bool, strict: bool) -> float:
    """The reference's price, with a logit tie ignored (``not tie_counts``) or a cap equal to the floor accepted."""
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    if np.any(((disadvantage >= 0) if tie_counts else (disadvantage > 0)) & (gap <= 0)):
        return 0.0
    cap = np.min(gap[disadvantage > 0] / disadvantage[disadvantage > 0], initial=np.inf)
    floor = np.max(gap[disadvantage < 0] / disadvantage[disadvantage < 0], initial=0.0)
    return float(cap) if (cap > floor if strict else cap >= floor) else 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_price_rows_hold_logit_ties_and_caps_equal_to_floors(seed):
    rows = price_cases(seed)
    assert all(price_variant(*row, True, True) == d_oracle.price_exploit(*row) for row in rows)
    for tie_counts, strict in ((False, True), (True, False)):
        assert any(price_variant(*row, tie_counts, strict) != d_oracle.price_exploit(*row) for row in rows)


def test_boundary_logs_sit_exactly_where_they_are_built():
    """On one seed's runs (the public seed the student sees): every statistic a boundary log names is set exactly."""
    seed = min(load_course(paths.COURSE_FILE, private=False).seeds.public)
    base = {(run.label, run.severity): log for run, log in zip(fresh_plan(seed), unbundle(fresh_logs(seed)))}
    for b in BOUNDARIES:
        log = build(b, base[b.base])
        updates = [log["update"] == u for u in np.unique(log["update"])]
        if b.entropy is not None:
            assert np.allclose([c_oracle.entropy_nats(log["logits"][m]).mean() for m in updates], b.entropy)
        if b.variance is not None:
            assert np.isclose(late_variance(log), b.variance)
        if b.spike is not None:
            late_updates = [m for m in updates if late(log)[m].all()]
            assert np.isclose(max(relative(log, m) for m in late_updates), b.spike)
            assert relative(log, late(log)) <= QUIET + 1e-12 and relative(log, log["update"] >= 0) < QUIET + 1e-12
        if b.loud_start is not None:
            assert np.isclose(relative(log, log["update"] >= 0), b.loud_start)
            assert max(relative(log, m) for m in updates if late(log)[m].all()) <= QUIET + 1e-12


def test_matters_with_the_mean_is_told_the_row_it_got_wrong_and_the_chapters_criterion(tmp_path, course):
    message = graded_mutant(tmp_path, course, "matters compares the means", ["B.summary"])["B.summary"]["message"]
    assert "with scores [" in message and "the median moves by" in message and "seed spread" in message
    assert "The chapter's bar: |median(factor) - median(baseline)| > max(range(factor), range(baseline))" in message
    assert "compares the means instead of the medians" in message
