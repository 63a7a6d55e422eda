"""Every realistic bug costs the check it breaks, on every seed: the unit checks' inputs reach every branch of the
piece they grade (docs/check-coverage.md), credit is all or nothing unless course.yml says per_case, a cascade names
its cause, and messages say what, where, and a hint only when it is specific."""

import dataclasses
import importlib.util
import re

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects._shared.ppo import oracle as a_oracle
from autograder.projects._shared.ppo.cases import gae_cases
from autograder.projects.a_ppo.update import UPDATE_CONFIG, UPDATE_LR, update_inputs
from autograder.projects.b_ablations import switches as b_switches
from autograder.projects.b_ablations.catalogue import flipped as b_flipped
from autograder.projects.b_ablations.crafted import score_cases, separated, verdicts
from autograder.projects.c_diagnosis import lines as c_lines
from autograder.projects.c_diagnosis import oracle as c_oracle
from autograder.projects.c_diagnosis.boundary import BOUNDARIES, QUIET, build, late, late_variance, relative
from autograder.projects.c_diagnosis.edges import shaped_logs
from autograder.projects.c_diagnosis.fresh import fresh_logs, unbundle
from autograder.projects.c_diagnosis.pieces import td_cases
from autograder.projects.c_diagnosis.run_plan import fresh_plan
from autograder.projects.d_grpo import oracle as d_oracle
from autograder.projects.d_grpo.price import price_cases
from autograder.projects.d_grpo.steps import STEP_CASES, reference_step, step_inputs, step_kwargs
from tests.support.grading import copy_reference, grade_checks, mutate, write_submission
from tests.support.mutants import ALL
from tests.support.readme_faithful import readme_faithful_label, readme_faithful_variants
from rlkit.categorical import log_softmax
from rlkit.nn import Adam, flatten
from test_config import course_file, error_of

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

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

    def surrogate_traced(logits, actions, logp_old, adv, eps, **precision):
        rho = np.exp(log_softmax(logits)[np.arange(len(actions)), actions] - logp_old)
        clipped.append(float(np.mean(((adv > 0) & (rho > 1 + eps)) | ((adv < 0) & (rho < 1 - eps)))))
        return surrogate(logits, actions, logp_old, adv, eps, **precision)

    monkeypatch.setattr(a_oracle, "clip_by_global_norm", clip_traced)
    monkeypatch.setattr(a_oracle, "clipped_surrogate", surrogate_traced)
    agent, batch = update_inputs(seed)
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
    a_oracle.ppo_update(agent, optimizer, batch, UPDATE_CONFIG, np.random.default_rng(seed))
    return norms, clipped


@pytest.mark.parametrize("seed", SEEDS)
def test_a_update_makes_global_norm_clipping_bind_and_ratios_leave_the_clip_range(seed, monkeypatch):
    norms, clipped = traced_update(seed, monkeypatch)
    assert max(norms) > 1.5 * UPDATE_CONFIG["max_grad_norm"], norms
    assert max(clipped) > 0.05, clipped


def reference_update_with(seed: int, config: dict) -> np.ndarray:
    agent, batch = update_inputs(seed)
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
    a_oracle.ppo_update(agent, optimizer, batch, config, np.random.default_rng(seed))
    return np.concatenate([p.ravel() for p in flatten(agent["actor"]) + flatten(agent["critic"])])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_update_reads_every_config_value_off_its_default(seed):
    """A ppo_update that hard-codes any value it reads at Config's default ends far beyond A.update's tolerance."""
    defaults = {f.name: f.default for f in dataclasses.fields(reference_module("A_ppo", "ppo").Config)}
    tolerance = load_course(paths.COURSE_FILE, private=False).projects["A"].checks["A.update"].bar["tolerance"]
    want = reference_update_with(seed, UPDATE_CONFIG)
    for field in UPDATE_CONFIG:
        assert UPDATE_CONFIG[field] != defaults[field], field
        hard_coded = reference_update_with(seed, {**UPDATE_CONFIG, field: defaults[field]})
        assert np.abs(hard_coded - want).max() > 1000 * tolerance, field


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
    row = graded_mutant(tmp_path, course, "grpo_step flips the KL sign", ["D.grpo_step"])["D.grpo_step"]
    message = row["message"]
    assert message.startswith("Where it differs: your steps (new theta minus the given one) differ only when beta is "
                              "above 0.")
    assert [f["id"] for f in row["findings"]] == ["D.grpo_step.kl-sign-flipped"]  # named beside the message
    assert "clip" not in message and "ratio" not in message


def test_kl_penalty_names_its_mistake_beside_one_failing_case(tmp_path, course):
    """Led by where it departs, the row gives one failing case as the example, the rest counted; the mistake it
    recognises is named beside the message, once."""
    row = graded_mutant(tmp_path, course, "flipped KL sign", ["D.kl_penalty"])["D.kl_penalty"]
    message = row["message"]
    assert message.startswith("Where it differs: ") and message.count("kl_penalized_reward(") == 1
    assert [f["id"] for f in row["findings"]] == ["D.kl_penalty.sign-flipped"]
    assert re.search(r"; and \d+ more", message), message


def test_a_price_row_is_named_by_what_it_is_not_by_an_index_the_student_cannot_see(tmp_path, course):
    graded = graded_mutant(tmp_path, course, "price ignores the floor", ["D.price_exploit"])
    message = graded["D.price_exploit"]["message"]
    assert "a row whose floor binds: returned" in message.lower() and not re.search(r"\brow \d", message), message


def test_batch_values_one_step_late_are_shown_with_numbers(tmp_path, course):
    row = graded_mutant(tmp_path, course, "batch values are V(s_{t+1})", ["A.batch"])["A.batch"]
    assert "row 0 is" in row["message"] and "expected" in row["message"], row["message"]
    assert [f["id"] for f in row["findings"]] == ["A.batch.next-values"]  # "V(s_{t+1})", beside the message


def test_a_ratio_grades_importance_ratio_when_ppo_update_is_a_stub(tmp_path, course):
    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    body = reference[reference.index("    ### BEGIN SOLUTION\n    B = len(batch"):reference.index(
        "    ### END SOLUTION\n\n\ndef explained_variance")]
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, reference.replace(body, "    raise NotImplementedError\n"), "A_ppo", "ppo.py")
    message = grade_checks(root, course, checks=["A.ratio"])["A.ratio"]["message"]
    assert message.startswith("importance_ratio is right; the ratio on ppo_update's first minibatch could not be read")


@pytest.mark.parametrize("edit, said", [("2 * np.exp(logp_new - logp_old)", "scaled by one constant factor"),
                                         ("np.exp(logp_new - logp_old) + 0.1", "plus one constant")])
def test_a_ratio_off_by_a_factor_or_an_offset_says_so_in_final_grading_and_the_students_checker(tmp_path, course,
                                                                                                edit, said):
    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, mutate(reference, "return np.exp(logp_new - logp_old)", f"return {edit}"), "A_ppo",
                     "ppo.py")
    row = grade_checks(root, course, checks=["A.ratio"])["A.ratio"]
    assert row["message"].startswith(f"Where it differs: your ratios are the expected values {said}."), row
    assert [s["id"] for s in row["located"]] == [f"A.ratio.{'factor' if 'factor' in said else 'offset'}"]



@pytest.mark.parametrize("old, new, said", [
    ("(np.eye(logits.shape[1])[actions] - np.exp(logp_all))", "np.eye(logits.shape[1])[actions]",
     "your gradients differ exactly at the samples whose gradient the clip keeps"),
    ("np.clip(rho, 1 - eps, 1 + eps)", "np.clip(rho, 1 + eps, 1 + eps)",
     "your objectives are too small, never too large")])
def test_a_clip_gradient_that_departs_in_its_gradient_formula_or_its_objective_says_where(tmp_path, course, bundle,
                                                                                         old, new, said):
    """A gradient wrong wherever the clip keeps it (the formula, not the clip's cases), and a clip range whose
    gradients are all right but whose objective takes the wrong term of the min: final grading and the students'
    checker lead with the same statement."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, mutate(reference, old, new), "A_ppo", "ppo.py")
    row = grade_checks(root, course, checks=["A.clip_gradient"])["A.clip_gradient"]
    lead = f"Where it differs: {said}"  # then "." or, where a relation fits the sentence too, "; where they ..."
    assert row["message"].startswith(lead) and row["message"][len(lead)] in ".;", row["message"]
    kit = kit_message(bundle, root, "A", "A.clip_gradient")[0]
    assert kit.startswith(lead) and kit[len(lead)] in ".;"



RAISES_LATER = "            adv = batch[\"advantages\"][idx]\n"


@pytest.mark.parametrize("at, said", [("k == 2", "your update follows the first Adam step (every ratio is 1) and "
                                                  "differs later in the first epoch"),
                                       ("epoch == 1", "your update follows the reference's whole first epoch and "
                                                      "differs only in a later epoch")])
def test_an_update_that_raises_says_at_which_step_it_departed_in_final_grading_and_the_students_checker(
        tmp_path, course, bundle, at, said):
    """A ppo_update that raises part way (here at its third minibatch, or in its second epoch) keeps the row of code
    that raised, led by where the update had departed by then, from the steps it made; on the grading seeds too, where
    the row quotes nothing the code said."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    raising = f"            if {at}:\n                raise ValueError('not this minibatch')\n"
    write_submission(root, mutate(reference, RAISES_LATER, RAISES_LATER + raising), "A_ppo", "ppo.py")
    row = grade_checks(root, course, checks=["A.update"])["A.update"]
    lead = f"Where it differs: {said}."
    assert row["message"].startswith(lead) and "raised ValueError" in row["message"], row["message"]
    assert [s["text"] for s in row["located"]] == [said] and row["details"]["status"] == "student_error"
    assert kit_message(bundle, root, "A", "A.update")[0].startswith(lead)
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["A.update"], seed_set="grading")["A.update"]
    assert blind["message"].endswith(f". {lead}") and "not this minibatch" not in blind["message"], blind["message"]



@pytest.mark.parametrize("name, said", [
    ("approx_kl adds log rho", "ppo_update's 'approx_kl' is "),
    ("approx_kl summed over the minibatch", "ppo_update's 'approx_kl' is "),
    ("statistics summed over the update's last epoch", "ppo_update's 'approx_kl' is "),
    ("statistics' log rho adds the old log-probability", "ppo_update's 'approx_kl' is "),
    ("clip fraction as a count", "ppo_update's 'clip_fraction' is "),
    ("statistics averaged over the wrong axis (raises where minibatches != 4)", "ppo_update's 'approx_kl' is ")])
def test_a_statistic_that_departs_costs_a_update_and_is_named_with_its_smallest_case(tmp_path, course, bundle, name,
                                                                                      said):
    """Networks right, statistics wrong: A.update is lost in final grading and in the students' checker, each row
    naming the statistic and ending with the smallest rung of the ladder that departs (a rung that raises said so)."""
    from capstone_check.located import SMALLEST
    from tests.support.student_bundle import kit_message, kit_result

    mutant = next(m for m in ALL if m.name == name)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    row = grade_checks(root, course, checks=["A.update"])["A.update"]
    assert row["score"] == 0 and row["message"].startswith(said), row["message"]
    assert f". {SMALLEST}ppo_update on " in row["message"], row["message"]
    assert [f["id"] for f in row["findings"]] == [mutant.finding]
    message, spec = kit_message(bundle, root, "A", "A.update")
    assert kit_result(bundle, root, "A", "A.update")["fraction"] < 1
    assert message.startswith(said) and f". {SMALLEST}ppo_update on " in message, message
    assert spec["findings"][mutant.finding] in kit_result(bundle, root, "A", "A.update")["named"]
    assert message.split(SMALLEST)[1] == row["message"].split(SMALLEST)[1]


def test_a_statistic_missing_from_what_ppo_update_returns_is_named(tmp_path, course, bundle):
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, mutate(reference, '"entropy": H, ', ""), "A_ppo", "ppo.py")
    row = grade_checks(root, course, checks=["A.update"])["A.update"]
    assert row["score"] == 0 and row["message"].startswith("ppo_update's statistics have no 'entropy'"), row
    assert kit_message(bundle, root, "A", "A.update")[0].startswith("ppo_update's statistics have no 'entropy'")


RETURNS = "    return {\"approx_kl\": kl, "


def test_an_update_that_raises_after_its_last_step_fails_a_update_and_says_where_it_raised(tmp_path, course, bundle):
    """Every step made, and the networks right, then the update raises: the call that raised fails A.update, whatever
    it had changed before, and the row names the exception and its line (in the students' checker too); on grading
    seeds the row says the exception without quoting what the code said."""
    from tests.support.student_bundle import kit_message, kit_result

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    raising = "    raise ValueError('too many values to unpack, said by the student')\n"
    write_submission(root, mutate(reference, RETURNS, raising + RETURNS), "A_ppo", "ppo.py")
    row = grade_checks(root, course, checks=["A.update"])["A.update"]
    assert row["score"] == 0 and row["details"]["status"] == "student_error", row
    assert "`ppo_update` raised ValueError" in row["message"] and "(ppo.py, line" in row["message"], row["message"]
    assert kit_result(bundle, root, "A", "A.update")["fraction"] < 1
    assert "`ppo_update` raised ValueError" in kit_message(bundle, root, "A", "A.update")[0]
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["A.update"], seed_set="grading")["A.update"]
    assert blind["score"] == 0 and "raised ValueError" in blind["message"], blind["message"]
    assert "said by the student" not in blind["message"], blind["message"]


@pytest.mark.parametrize("line, reached", [
    ("            adv = batch[\"advantages\"][idx]\n", False),
    ("            v_loss, d_values = value_loss(values[:, 0], batch[\"returns\"][idx])\n", True)])
def test_a_ratio_that_cannot_be_read_says_whether_the_update_raised_before_its_objective(tmp_path, course, bundle,
                                                                                         line, reached):
    """A ppo_update that raises on its first minibatch, before or after its first clipped_surrogate call: A.ratio's
    row keeps the exception and its line, led by which, in final grading, on grading seeds and in the checker."""
    from autograder.projects.a_ppo.public.located import UPDATE_RAISED
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    slip = "            raise KeyError('a slip in what the minibatch makes, said at some length by its author')\n"
    write_submission(root, mutate(reference, line, line + slip), "A_ppo", "ppo.py")
    key, said = UPDATE_RAISED[reached]
    lead = f"Where it differs: {said}."
    row = grade_checks(root, course, checks=["A.ratio"])["A.ratio"]
    assert row["message"].startswith(lead) and "raised KeyError" in row["message"], row["message"]
    assert "(ppo.py, line" in row["message"], row["message"]  # the exception's line is said, not only counted
    assert [s["id"] for s in row["located"]] == [f"A.ratio.{key}"]
    assert kit_message(bundle, root, "A", "A.ratio")[0].startswith(lead)
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["A.ratio"], seed_set="grading")["A.ratio"]
    assert lead in blind["message"], blind["message"]


def test_a_price_that_raises_on_some_rows_says_which_in_final_grading_and_the_students_checker(tmp_path, course,
                                                                                            bundle):
    """A price_exploit that raises on the rows where a response ties the exploit's logit (and returns elsewhere):
    every row still runs, and the row naming the exception is led by the feature of the rows it raised on, in final
    grading, on private grading seeds and in the students' checker."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    first = "    if np.any((disadvantage >= 0) & (gap <= 0)):\n"
    root = copy_reference(tmp_path, "D_grpo")
    tie = "    assert np.all(disadvantage != 0), 'a tie'\n"
    write_submission(root, mutate(reference, first, tie + first), "D_grpo", "grpo.py")
    row = grade_checks(root, course, checks=["D.price_exploit"])["D.price_exploit"]
    lead = "Where it differs: your price_exploit raises exactly on the rows where a response ties the exploit's logit."
    assert row["message"].startswith(lead) and "raised AssertionError" in row["message"], row["message"]
    assert [s["id"] for s in row["located"]] == ["D.price_exploit.raises-tie"]
    assert kit_message(bundle, root, "D", "D.price_exploit")[0].startswith(lead)
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["D.price_exploit"], seed_set="grading")["D.price_exploit"]
    assert blind["message"].endswith(f". {lead}") and "a tie" not in blind["message"], blind["message"]



def test_a_step_that_raises_for_one_sample_groups_says_so_and_the_other_steps_still_run(tmp_path, course, bundle):
    """A grpo_step that raises when K = 1 is led by that feature in final grading and the students' checker."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    first = "    pi_old, groups = policy(theta), []\n"
    root = copy_reference(tmp_path, "D_grpo")
    write_submission(root, mutate(reference, first, "    assert K > 1, 'a group of one'\n" + first), "D_grpo",
                     "grpo.py")
    row = grade_checks(root, course, checks=["D.grpo_step"])["D.grpo_step"]
    lead = "Where it differs: your grpo_step raises only when K = 1."
    assert row["message"].startswith(lead) and "AssertionError" in row["message"], row["message"]
    assert [s["id"] for s in row["located"]] == ["D.grpo_step.raises-one-sample"]
    assert kit_message(bundle, root, "D", "D.grpo_step")[0].startswith(lead)


@pytest.mark.parametrize("old, new, piece", [
    ("((A < 0) & (rho < 1 - eps))", "((A < 0) & (rho < 2 - eps))", "clipped_surrogate_gradient"),
    ("r.std() + 1e-8", "r.std()", "group_standardized_weight")])  # the second makes NaN steps: an error row
def test_a_step_that_departs_only_through_a_piece_names_it_in_final_grading_and_the_students_checker(
        tmp_path, course, bundle, old, new, piece):
    """A right grpo_step over a wrong piece: with the reference's piece in place it gives the expected steps, so its
    row says which piece, in final grading and the students' checker alike; on private grading seeds, where the
    piece's expected outputs would give the steps away, the child gets none and nothing is said."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    root = copy_reference(tmp_path, "D_grpo")
    write_submission(root, mutate(reference, old, new), "D_grpo", "grpo.py")
    row = grade_checks(root, course, checks=["D.grpo_step"])["D.grpo_step"]
    lead = (f"Where it differs: your grpo_step differs only through your `{piece}`: with the expected `{piece}` in "
            "its place it gives the expected steps.")
    assert row["score"] == 0 and row["message"].startswith(lead), row["message"]
    assert [s["id"] for s in row["located"]] == [f"D.grpo_step.through-{piece}"]
    assert kit_message(bundle, root, "D", "D.grpo_step")[0].startswith(lead)
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["D.grpo_step"], seed_set="grading")["D.grpo_step"]
    assert blind["score"] == 0 and "through" not in blind["message"], blind["message"]


@pytest.mark.parametrize("old, new, said", [
    ("theta = theta + lr * g", "theta = theta - lr * g",
     "your grpo_step itself differs: with the expected pieces in place of yours, it still returns other "
     "steps"),
    ("clipped_surrogate_gradient(pi[x], pi_old[x], ys, A, eps)",
     "clipped_surrogate_gradient(pi[x], eps=eps, A=-A, ys=ys, pi_old_x=pi_old[x])",
     "your grpo_step itself differs: with the expected pieces, it passes `clipped_surrogate_gradient` an "
     "`A` no right grpo_step passes"),
    ("kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta)",
     "kl_penalized_reward(reward(x, ys), pi_old[x, ys], PI_REF[x, ys], beta + 0.1)",
     "your grpo_step itself differs: with the expected pieces, it passes `kl_penalized_reward` a `beta` "
     "no right grpo_step passes")])
def test_a_step_whose_own_lines_depart_says_so_and_which_input_in_final_grading_and_the_students_checker(
        tmp_path, course, bundle, old, new, said):
    """A grpo_step whose own code is wrong over right pieces: with every piece it calls replaced by the expected one it
    still departs, or hands a piece an input no right step does (its arguments bound by name, in any order); its row
    says so, in final grading and the students' checker alike, and nothing of it on private grading seeds."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    root = copy_reference(tmp_path, "D_grpo")
    write_submission(root, mutate(reference, old, new), "D_grpo", "grpo.py")
    row = grade_checks(root, course, checks=["D.grpo_step"])["D.grpo_step"]
    assert row["score"] < row["max_score"] and row["message"].startswith(f"Where it differs: {said}."), row["message"]
    assert len(row["message"]) <= 300 and row["located"][0]["text"] == said
    assert kit_message(bundle, root, "D", "D.grpo_step")[0].startswith(f"Where it differs: {said}.")
    (tmp_path / "private.yml").write_text("seeds: {grading: [4000000001, 55]}\n")
    private = load_course(paths.COURSE_FILE, private=tmp_path / "private.yml")
    blind = grade_checks(root, private, checks=["D.grpo_step"], seed_set="grading")["D.grpo_step"]
    assert blind["score"] < blind["max_score"] and "own lines" not in blind["message"], blind["message"]


def test_a_step_that_reaches_its_wrong_piece_by_another_name_is_not_said_to_depart_in_its_own_lines(tmp_path, course,
                                                                                                      bundle):
    """A right grpo_step calling its own wrong piece through an alias the stand-ins cannot replace: the step's own lines
    are right, so neither final grading nor the students' checker says they depart."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    wrong = mutate(mutate(reference, "((A < 0) & (rho < 1 - eps))", "((A < 0) & (rho < 2 - eps))"),
                   "g[x] = clipped_surrogate_gradient(", "g[x] = _gradient(")
    root = copy_reference(tmp_path, "D_grpo")
    write_submission(root, wrong + "\n\n_gradient = clipped_surrogate_gradient\n", "D_grpo", "grpo.py")
    row = grade_checks(root, course, checks=["D.grpo_step"])["D.grpo_step"]
    assert row["score"] < row["max_score"]
    assert not any(".own-lines" in s["id"] or ".passes-" in s["id"] for s in row.get("located", [])), row["located"]
    assert "own lines" not in kit_message(bundle, root, "D", "D.grpo_step")[0]


def test_a_surrogate_that_departs_only_through_its_ratio_names_it_in_final_grading_and_the_students_checker(
        tmp_path, course, bundle):
    """A right clipped_surrogate over an inverted importance_ratio: A.clip_gradient's row says the surrogate departs
    only through the ratio, in final grading and in the students' checker."""
    from tests.support.student_bundle import kit_message

    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    root = copy_reference(tmp_path, "A_ppo")
    write_submission(root, mutate(reference, "np.exp(logp_new - logp_old)", "np.exp(logp_old - logp_new)"), "A_ppo",
                     "ppo.py")
    row = grade_checks(root, course, checks=["A.clip_gradient"])["A.clip_gradient"]
    lead = ("Where it differs: your clipped_surrogate differs only through your `importance_ratio`: with the expected "
            "`importance_ratio` in its place it gives the expected objectives and gradients.")
    assert row["score"] == 0 and row["message"].startswith(lead), row["message"]
    assert row["located"][0]["id"] == "A.clip_gradient.through-importance_ratio"
    assert kit_message(bundle, root, "A", "A.clip_gradient")[0].startswith(lead)


def test_the_stand_ins_records_are_made_for_the_public_seeds_only(course):
    """The records of the reference's piece outputs would give a graded step away: none in the child's inputs on the
    grading seeds; on a public seed one file, however many submissions are graded."""
    import json

    from autograder.checks import Context
    from autograder.projects.a_ppo.clip_gradient import ClippedSurrogateGradient
    from autograder.projects.d_grpo.steps import GrpoStep

    for check, pid in ((GrpoStep(), "D"), (ClippedSurrogateGradient(), "A")):
        bar = check.Bar(**course.projects[pid].checks[check.id].bar)
        with open(check.prepare(Context((4_000_000_001, 55), "grading", bar)), encoding="utf-8") as made:
            assert "through" not in json.load(made)
        made = check.prepare(Context((7,), "public", bar))
        with open(made, encoding="utf-8") as inputs:
            assert json.load(inputs)["through"]["records"]
        assert check.prepare(Context((7,), "public", bar)) == made  # once per seed


# ------------------------------------------------------------------------- inputs that tell neighbours apart


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
        if b.whole_variance is not None:
            assert np.isclose(c_oracle.explained_variance(log["values"], log["returns"]), b.whole_variance)
        if b.spike is not None:
            late_updates = [m for m in updates if late(log)[m].all()]
            assert np.isclose(max(relative(log, m) for m in late_updates), b.spike)
            assert relative(log, late(log)) <= QUIET + 1e-12 and relative(log, log["update"] >= 0) < QUIET + 1e-12
        if b.loud_start is not None:
            assert np.isclose(relative(log, log["update"] >= 0), b.loud_start)
            assert np.allclose([relative(log, m) for m in updates if late(log)[m].all()], QUIET)


def test_matters_with_the_mean_is_told_the_row_it_got_wrong_and_the_chapters_criterion(tmp_path, course):
    row = graded_mutant(tmp_path, course, "matters compares the means", ["B.summary"])["B.summary"]
    message = row["message"]
    assert "matters returned False" in message and "median change" in message and "seed spread" in message
    assert "the bar is |change| > spread, strictly" in message
    assert [f["id"] for f in row["findings"]] == ["B.summary.matters-on-means"]  # the neighbour, named beside


# -------------------------------------------------------------------------------- configs off their defaults


def switch_update(seed: int, config: dict, details: dict, value_clip: float | None = None) -> np.ndarray:
    """B.switches' update sub-test by the reference, under ``config``; ``value_clip`` hard-codes the value clip."""
    agent, batch = b_switches.update_inputs(seed)
    plain = a_oracle.clipped_value_loss
    if value_clip is not None:
        a_oracle.clipped_value_loss = lambda v, old, r, eps: plain(v, old, r, value_clip)
    try:
        a_oracle.ppo_update(agent, b_switches.update_optimizer(agent), batch, config, np.random.default_rng(seed),
                            details)
    finally:
        a_oracle.clipped_value_loss = plain
    return np.concatenate([p.ravel() for p in flatten([agent["actor"], agent["critic"]])])


def differs(a, b, tolerance: float) -> bool:
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max() > 100 * tolerance)


@pytest.mark.parametrize("seed", SEEDS)
def test_b_switches_separate_every_config_value_from_its_default_on_every_draw(seed):
    """Every value B's switches read is off Config's default, and each clip_eps and adam_eps the seed may draw
    separates a function that hard-codes the default: the surrogate's and the value loss's clip, Adam's epsilon."""
    defaults = {f.name: f.default for f in dataclasses.fields(reference_module("A_ppo", "ppo").Config)}
    tolerance = load_course(paths.COURSE_FILE, private=False).projects["B"].checks["B.switches"].bar["tolerance"]
    read = {"hidden": b_switches.HIDDEN, "gamma": b_switches.GAMMA, "lam": b_switches.LAM,
            "lr": b_switches.SWITCH_OPTIMIZER_CONFIG["lr"]}
    assert all(value != defaults[field] for field, value in read.items()), read
    baseline, value_clipped = b_flipped(None), b_flipped("clip_value_loss")
    for eps in b_switches.CLIP_EPS:
        config = {**b_switches.SWITCH_UPDATE_CONFIG, "clip_eps": eps}
        for field in config:
            assert config[field] != defaults[field], field
            assert differs(switch_update(seed, {**config, field: defaults[field]}, baseline),
                           switch_update(seed, config, baseline), tolerance), (eps, field)
        assert differs(switch_update(seed, config, value_clipped, defaults["clip_eps"]),
                       switch_update(seed, config, value_clipped), tolerance), eps
    agent = b_switches.fresh_agent(seed)
    gradients = b_switches.adam_gradients(seed, agent)
    for eps in b_switches.ADAM_EPS:
        moved = [adam_steps(agent, gradients, adam_eps) for adam_eps in (eps, defaults["adam_eps"])]
        assert differs(*moved, tolerance), eps


def adam_steps(agent, gradients, eps: float) -> np.ndarray:
    params = [np.array(p, copy=True) for p in flatten([agent["actor"], agent["critic"]])]
    optimizer = Adam(params, lr=b_switches.SWITCH_OPTIMIZER_CONFIG["lr"], eps=eps)
    for g in gradients:
        optimizer.step(g)
    return np.concatenate([p.ravel() for p in params])


def reference_module(folder: str, name: str):
    spec = importlib.util.spec_from_file_location(f"reference_{name}", paths.SOLUTIONS / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_readme_faithful_diagnose_labels_each_boundary_log_right_and_none_lies_near_a_line():
    seed = min(load_course(paths.COURSE_FILE, private=False).seeds.public)
    base = {(run.label, run.severity): log for run, log in zip(fresh_plan(seed), unbundle(fresh_logs(seed)))}
    for b in BOUNDARIES:
        log = build(b, base[b.base])
        gap, value = c_lines.deciding_statistic(log)
        assert min(abs(value - gap.fault), abs(value - gap.healthy)) >= c_lines.CLEARANCE - 1e-9, b.name
        assert not gap.inside(value), b.name
        for place, inclusive in readme_faithful_variants():
            assert readme_faithful_label(log, place, inclusive) == b.label, (b.name, place, inclusive)


def test_every_readme_faithful_diagnose_labels_every_shaped_fresh_run_right():
    """On the public seeds' fresh runs as C.fresh_runs labels them, shaped to their edges: any threshold inside the
    README's gaps labels every run right."""
    for seed in load_course(paths.COURSE_FILE, private=False).seeds.public:
        for run, log in zip(fresh_plan(seed), unbundle(shaped_logs(seed))):
            assert {readme_faithful_label(log, *v) for v in readme_faithful_variants()} == {run.label}, (seed, run)


def test_b_switches_credits_each_switch_a_ninth(tmp_path, course):
    """One switch of nine wrong (Adam's epsilon ignored) keeps eight ninths of B.switches, as B's README says."""
    result = graded_mutant(tmp_path, course, "an Adam-epsilon switch that is ignored", ["B.switches"])["B.switches"]
    assert result["score"] == round(result["max_score"] * 8 / 9, 2), result
    assert result["message"].startswith("large_adam_eps:")
