"""What a forger can steer, and what the grader's own work costs. Every graded PPO run trains
with the course's hyperparameters, never the submission's ``Config()``; the judge's replay of A's runs takes from the
student only the parameters, the actions and Adam's first moment (checked so closely that it moves a weight less than
``replay_tolerance`` an update), never the second moment. Over the course's updates the bound that leaves (docs/
design-notes.md, "What a forger can steer") is far from enough to make a policy that does not learn pass A.bar. The
grader's audits run inside the submission's time budget."""

from dataclasses import dataclass

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from autograder.projects._shared.ppo.hyperparameters import Hyperparameters, course_config, differences
from autograder.projects._shared.proof import init_agent, load, parameters, run
from autograder.projects.a_ppo.training import Bar450, reference_recipe
from capstone_check.student import StudentError
from rlkit.cartpole import evaluate, make_envs

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

COURSE = Hyperparameters()


def student_with(config_class):
    """A stand-in for a loaded submission whose ppo.py defines ``config_class`` as Config."""
    module = type("ppo", (), {"Config": config_class})
    return type("Student", (), {"modules": [module], "fn": staticmethod(lambda name: getattr(module, name))})()


def test_a_students_config_is_handed_the_course_values_whatever_its_defaults():
    @dataclass(frozen=True)
    class Config:
        lr: float = 1e4
        adam_eps: float = 1.0
        max_grad_norm: float = 0.0
        epochs: int = 64
        minibatches: int = 512
        hidden: int = 256
        gamma: float = 0.5
        lam: float = 0.0
        clip_eps: float = 0.9
        vf_coef: float = 9.0
        ent_coef: float = 9.0
        extra: str = "kept"  # fields of the student's own stay as they are

    config = course_config(student_with(Config), COURSE)
    assert {name: getattr(config, name) for name in Hyperparameters.model_fields} == COURSE.model_dump()
    assert config.extra == "kept"


def test_a_config_that_will_not_hold_the_course_values_is_refused_by_name():
    class Stubborn:  # a plain class whose step size cannot be set
        def __init__(self):
            for name, value in COURSE.model_dump().items():
                object.__setattr__(self, name, value)

        lr = property(lambda self: 1e4, lambda self, value: None)

    with pytest.raises(StudentError, match="changes lr"):
        course_config(student_with(Stubborn), COURSE)

    @dataclass
    class Short:
        gamma: float = 0.99

    with pytest.raises(StudentError, match="no field"):
        course_config(student_with(Short), COURSE)


def test_the_differences_from_the_course_are_named_with_both_values():
    assert differences(COURSE.model_dump(), COURSE) == []
    changed = differences({**COURSE.model_dump(), "lr": 5e-3, "epochs": 10}, COURSE)
    assert changed == ["epochs 10 (the course's: 6)", "lr 0.005 (the course's: 0.0025)"]


def test_a_note_names_a_config_that_differs_and_ignores_what_is_not_numbers():
    from autograder.projects._shared.ppo.hyperparameters import config_note

    assert config_note(COURSE.model_dump(), COURSE) == ""
    for garbage in (None, "lr", [1, 2], {"lr": "1e4"}, {"lr": float("nan")}, {"lr": True}, {"secret": 5}):
        assert config_note(garbage, COURSE) == "", garbage
    assert "lr 0.005 (the course's: 0.0025)" in config_note({"lr": 5e-3, "gamma": 0.99}, COURSE)


def test_course_yml_cannot_ask_the_replay_for_unbounded_work():
    for field, value in (("epochs", 64), ("minibatches", 512), ("hidden", 1024), ("lr", 10.0), ("adam_eps", 1.0)):
        with pytest.raises(ValueError):
            Hyperparameters(**{field: value})


@pytest.fixture(scope="module")
def trained(course):
    """The reference's final parameters after the course's run on public seed 7, its initial ones and A.bar's bar."""
    bar = Bar450.Bar.model_validate(course.projects["A"].checks["A.bar"].bar)
    recipe = reference_recipe(bar.hyperparameters.model_dump(), bar.n_updates)
    with threadpool_limits(limits=1):
        envs = make_envs(bar.num_envs)
        final = parameters(run(envs, 7, bar.n_updates, bar.n_steps, recipe)).astype(float)
        envs.close()
    start = parameters(recipe.init(np.random.default_rng(7))).astype(float)
    return start, final, bar


def evaluated(snapshot: np.ndarray, bar, seed: int = 7) -> float:
    """The median return of A.bar's evaluation of the policy with parameters ``snapshot``."""
    agent = init_agent(np.random.default_rng(0), bar.hyperparameters.hidden)
    load(agent, snapshot.astype(np.float32))
    return float(np.median(evaluate(agent["actor"], bar.eval_episodes, seed=10_007 * seed + 1)))


def forger_bound(bar) -> float:
    """How far a forger can move each weight over a run beyond PPO's own updates (docs/design-notes.md): each
    update's parameters may be ``replay_tolerance`` off the replay, and an m ``moment_tolerance`` off on Adam's
    scale moves update k (k >= 2, step size lr (1 - (k - 1) / n)) by at most 9.21 lr_k ``moment_tolerance``."""
    h, n = bar.hyperparameters, bar.n_updates
    return n * bar.replay_tolerance + 9.21 * bar.moment_tolerance * h.lr * sum(1 - k / n for k in range(1, n))


def test_the_first_moment_moves_a_weight_less_than_the_tolerance_in_any_update(course):
    bar = Bar450.Bar.model_validate(course.projects["A"].checks["A.bar"].bar)
    assert 9.21 * bar.moment_tolerance * bar.hyperparameters.lr < bar.replay_tolerance


def test_what_a_forger_can_add_over_the_whole_run_cannot_make_a_policy_that_does_not_learn_pass(trained):
    """Beyond PPO's own updates a forger adds at most ``forger_bound`` to each weight. Spent entirely on moving the
    grader's initial policy towards a trained one (each weight its full budget in the trained one's direction, or the
    trained one's change cut to the budget), it stays far below A.bar's threshold; the trained policy itself passes,
    so the direction was a good one."""
    start, final, bar = trained
    budget = forger_bound(bar)
    assert budget < 1e-3
    assert evaluated(final, bar) > bar.threshold
    for nudged in (start + budget * np.sign(final - start), start + np.clip(final - start, -budget, budget)):
        assert np.abs(nudged - start).max() <= budget * (1 + 1e-6)
        assert evaluated(nudged, bar) < bar.threshold / 4, evaluated(nudged, bar)


@pytest.fixture(scope="module")
def a_run(course):
    """A run of the reference as A.bar's child hands it back (the course's 60 updates), its seed and A.bar's bar."""
    from autograder.projects._shared.ppo.recording import recorded

    bar = Bar450.Bar.model_validate(course.projects["A"].checks["A.bar"].bar)
    with threadpool_limits(limits=1):
        made = recorded(reference_recipe(bar.hyperparameters.model_dump(), bar.n_updates), 5, bar,
                        moments=("m", "v"))
    return {"seed": 5, **made}, 5, bar


def test_the_graders_audit_is_charged_to_the_submissions_budget(a_run):
    from autograder.grading_run import GradingRun
    from autograder.projects._shared import audits
    from autograder.projects.a_ppo.training import replay_plain
    from autograder.submission_budget import SubmissionBudget

    run_, seed, bar = a_run
    budget = SubmissionBudget(500)
    grading = GradingRun(budget)
    audits.start(grading, run_, seed, bar.model_dump(), replay_plain, "A.bar")
    assert 0.5 <= 500 - budget.left() < 100 and budget.spenders().startswith("A.bar (the grader's audit) ")
    assert audits.taken(grading, run_, seed, bar.model_dump(), replay_plain)[1] is None


@pytest.mark.parametrize("left", [0.0, 1.0])
def test_an_audit_the_budget_cannot_pay_for_is_not_replayed_and_says_so(a_run, left):
    """With nothing left the audit is not started; with a second left it is stopped by its CPU limit. Either way the
    judge is told the budget ran out, and does not replay the run itself."""
    from autograder.grading_run import GradingRun
    from autograder.projects._shared import audits
    from autograder.projects.a_ppo.training import replay_plain
    from autograder.submission_budget import OutOfBudget, SubmissionBudget

    run_, seed, bar = a_run
    budget = SubmissionBudget(100)
    budget.charge("A.update", 100 - left)
    grading = GradingRun(budget)
    audits.start(grading, run_, seed, bar.model_dump(), replay_plain, "A.bar")
    with pytest.raises(OutOfBudget, match=r"ran out (before|during) the grader's audit.*: A\.update (99|100) s"):
        audits.taken(grading, run_, seed, bar.model_dump(), replay_plain)
    assert budget.left() <= 0
