"""The proof of learning: A.bar credits a run only when the judge, replaying every update with the reference
from the student's own parameters, lands on the student's next parameters. Correct rewrites pass; each cheat earns 0
with a sentence naming the update that did not follow. Runs are short (12 updates, one seed) to keep the suite lean;
``benchmarks/a_proof_of_learning.py`` does the full 60 updates over 20 seed sets."""

import base64

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from autograder import paths
from autograder.checks import Malformed
from autograder.departures import clause
from autograder.grading_run import GradingRun
from autograder.projects._shared.proof import init_agent, sampled
from autograder.projects._shared.replay import Departed, replayed
from autograder.projects._shared import audits
from autograder.projects.a_ppo import training
from autograder.projects._shared.ppo.recording import recorded
from autograder.projects.a_ppo.training import Bar450, audited_run, reference_recipe, replay, replay_plain
from tests.support.grading import grade_checks, mutate, write_submission
from rlkit.categorical import log_softmax
from rlkit.cartpole import Rollout, make_envs

from tests.support.proof_cheats import CHEATS, IMPLEMENTATIONS, UPDATE, proof, source_of

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
STUB = (paths.ASSIGNMENTS / "A_ppo" / "ppo.py").read_text()
N_UPDATES = 12


def short(course, n_updates: int = N_UPDATES):
    """The course with A.bar cut to ``n_updates`` updates on one public seed."""
    project, check = course.projects["A"], course.projects["A"].checks["A.bar"]
    checks = {**project.checks, "A.bar": check.model_copy(update={"bar": {**check.bar, "n_updates": n_updates}})}
    return course.model_copy(update={"projects": {**course.projects,
                                                  "A": project.model_copy(update={"checks": checks})},
                                     "seeds": course.seeds.model_copy(update={"public": [7]})})


def bar_of(tmp_path, course, source: str, files: dict | None = None) -> dict:
    root = write_submission(tmp_path, source, "A_ppo", "ppo.py")
    for name, text in (files or {}).items():
        (root / "A_ppo" / name).write_text(text)
    return grade_checks(root, short(course), ["A.bar"])["A.bar"]


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_correct_implementations_written_differently_follow_the_replay(name, course):
    bar = course.projects["A"].checks["A.bar"].bar
    for seed in (11, 2 ** 31 + 5):  # two seed sets of one seed each
        departed, gap, _, _ = proof(source_of(IMPLEMENTATIONS[name]), seed, bar, N_UPDATES)
        assert departed is None, f"{name}, seed {seed}: update {departed} departed by {gap:.3g}"


def test_the_reference_earns_the_replayed_run_audited_as_soon_as_its_child_returned(tmp_path, course, monkeypatch):
    late = []  # replays done by judge itself: none, since the grader audited the run when its child returned
    monkeypatch.setattr(training, "replay", lambda *args: late.append(args) or replay(*args))
    result = bar_of(tmp_path, course, REFERENCE)
    assert "What the grader saw" not in result["message"] and len(result["details"]["curves"][0]) == N_UPDATES, result
    assert not late


@pytest.mark.parametrize("cheat", ["forged jump at one update", "an update skipped",
                                   "weights trained elsewhere, loaded at the last update"])
def test_a_forged_update_is_caught_and_named(tmp_path, course, cheat):
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, CHEATS[cheat]))
    update = {"forged jump at one update": 7, "an update skipped": 5}.get(cheat, N_UPDATES)
    assert result["score"] == 0 and f"at update {update} of {N_UPDATES}" in result["message"], result


def test_pretrained_weights_returned_by_train_earn_nothing(tmp_path, course):
    weights = ("\n\ndef train(envs, n_updates, n_steps, seed, config=Config(), progress=None):\n"
               "    agent = init_agent(np.random.default_rng(0), config)\n"
               "    return agent, [{'episode_return': 500.0}] * n_updates\n")
    result = bar_of(tmp_path, course, STUB + weights)
    assert result["score"] == 0 and "not implemented yet" in result["message"], result


def test_weights_trained_at_import_on_a_cartpole_of_its_own_earn_nothing(tmp_path, course):
    at_import = ("import gymnasium.envs.classic_control as _cc\n_env = _cc.CartPoleEnv().unwrapped\n"
                 "_env.reset(seed=0)\n"
                 "for _ in range(50):\n    _env.step(0)\n"
                 "PRETRAINED = np.random.default_rng(3).normal(0, 0.3, 2531).astype(np.float32)\n\n\n")
    load = ("    start = 0\n    for p in optimizer.params:\n"
            "        p[...] = PRETRAINED[start:start + p.size].reshape(p.shape)\n        start += p.size\n"
            "    return {}\n")
    source = mutate(REFERENCE, "# ---------------------------------------------------------------- given: hyper",
                    at_import + "# ---------------------------------------------------------------- given: hyper")
    result = bar_of(tmp_path, course, mutate(source, UPDATE, load))
    assert result["score"] == 0 and f"at update 1 of {N_UPDATES}" in result["message"], result


def test_weights_loaded_from_a_file_earn_nothing(tmp_path, course):
    load = ("    import json, pathlib\n"
            "    saved = json.loads((pathlib.Path(__file__).parent / 'weights.json').read_text())\n"
            "    for p in optimizer.params:\n        p[...] = saved\n    return {}\n")
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, load), {"weights.json": "0.125"})
    assert result["score"] == 0 and f"at update 1 of {N_UPDATES}" in result["message"], result


def test_extra_steps_of_the_environments_earn_nothing(tmp_path, course):
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, CHEATS["extra steps of the environments"]))
    assert result["score"] == 0 and "more than the budget" in result["message"], result


STEERING_CONFIG = {"lr: float = 2.5e-3": "lr: float = 1.0", "adam_eps: float = 1e-5": "adam_eps: float = 1.0",
                   "max_grad_norm: float = 0.5": "max_grad_norm: float = 0.0"}
COSTLY_CONFIG = {"epochs: int = 6": "epochs: int = 64", "minibatches: int = 8": "minibatches: int = 512",
                 "hidden: int = 32": "hidden: int = 256", "max_grad_norm: float = 0.5": "max_grad_norm: float = 0.0"}


def with_config(source: str, edits: dict) -> str:
    for old, new in edits.items():
        source = mutate(source, old, new)
    return source


STEERED = ("    for _ in range(config.epochs):\n        rng.permutation(len(batch['actions']))\n"
           "    zeros = [np.zeros_like(p) for p in optimizer.params]\n"
           "    for _ in range(config.epochs * config.minibatches):\n        optimizer.step(zeros)\n"
           "    optimizer.m[...] += np.float32(9e-4)\n    return {}\n")  # no PPO: every move is Adam's, steered by m


def test_a_config_that_would_steer_the_replay_earns_nothing_without_ppo(tmp_path, course):
    """The steering attack: no PPO, a Config with a step size 400 times the course's, Adam's eps 1 and every gradient
    clipped to 0, and Adam's m nudged after each update by just under the moment tolerance (on Adam's scale, with v
    at 0 and eps 1, a plain 9e-4). Before the course's hyperparameters, the replay, run with the student's Config and
    from the student's moments, made the very same moves and all 12 updates followed (checked on the code before the
    change: the run was credited, and only its direction kept it under the bar). Graded with the course's
    hyperparameters, the replay's gradients are PPO's, and the first update departs."""
    result = bar_of(tmp_path, course, with_config(mutate(REFERENCE, UPDATE, STEERED), STEERING_CONFIG))
    assert result["score"] == 0 and f"at update 1 of {N_UPDATES}" in result["message"], result


def test_a_config_that_would_size_the_judges_replay_sizes_nothing(tmp_path, course):
    """The second steering attack: a Config of 64 epochs of 512 minibatches on networks of 256 units. The graded run
    and its replay use the course's sizes, so the reference's pieces under that Config still follow the replay, in
    the time of an ordinary run."""
    result = bar_of(tmp_path, course, with_config(REFERENCE, COSTLY_CONFIG))
    assert "What the grader saw" not in result["message"] and len(result["details"]["curves"][0]) == N_UPDATES, result
    assert "Your Config() differs from the course's (epochs 64 (the course's: 6); minibatches 512" in result["message"]


def reference_run(course, seed: int, n_updates: int = 4) -> tuple[dict, object]:
    """A short run of the reference's recipe as the child hands it back, and A.bar's bar cut to ``n_updates``."""
    bar = Bar450.Bar.model_validate({**course.projects["A"].checks["A.bar"].bar, "n_updates": n_updates})
    with threadpool_limits(limits=1):  # as the child
        made = recorded(reference_recipe(bar.hyperparameters.model_dump(), n_updates), seed, bar,
                        moments=("m", "v"))
    return {"seed": seed, **made}, bar


def test_the_judges_segment_from_recorded_actions_is_the_rollouts_bit_for_bit():
    for seed in (3, 4):
        agent = init_agent(np.random.default_rng(seed), 32)
        for layer in agent["actor"]:
            layer[0] *= 40  # a sharp policy: episodes end within the segments
        child, judge = Rollout(make_envs(16), seed), Rollout(make_envs(16), seed)
        rng_child, rng_judge = np.random.default_rng(seed), np.random.default_rng(seed)
        for k in range(4):
            made = sampled(child, agent, 32, rng_child)
            again = replayed(judge, made.actions.astype(np.uint8), agent, rng_judge, k + 1)
            for name in ("obs", "actions", "logp", "values", "rewards", "terminated", "truncated", "valid",
                         "episode_returns"):
                a, b = np.asarray(getattr(made, name)), np.asarray(getattr(again, name))
                assert a.dtype == b.dtype and np.array_equal(a, b), (seed, k, name)
        assert rng_child.random() == rng_judge.random()  # the judge's one call drew what the child's calls drew


def test_an_action_not_sampled_from_the_parameters_is_named(course):
    run_, bar = reference_run(course, 5)
    assert replay(run_, 5, bar)[1] is None
    actions = np.frombuffer(base64.b64decode(run_["actions"]), np.uint8).copy().reshape(4, bar.n_steps, bar.num_envs)
    actions[2, 10, 3] ^= 1  # one action of update 3 flipped: the env steps differ, and the action is not sampled
    forged = {**run_, "actions": base64.b64encode(actions.tobytes()).decode()}
    with pytest.raises(Departed) as departed:
        audited_run(forged, 5, bar)
    assert (departed.value.what, departed.value.update, departed.value.index) == ("actions", 3, 10 * bar.num_envs + 3)
    _, failure = replay(forged, 5, bar)
    assert clause(failure) == ("at update 3 of 4, an action was not the one your parameters sample with the grader's "
                               "random numbers")  # the step and environment, a flat index to a student, are not said


def test_forged_or_missing_adam_moments_are_named(course):
    """Each replay starts from the student's Adam moments, so they must follow as the parameters must."""
    run_, bar = reference_run(course, 8, 3)
    moments = np.frombuffer(base64.b64decode(run_["moments"]), "<f4").copy().reshape(3, -1)
    m, v = np.split(moments[1], 2)  # after update 2: m, then v
    for entry in (int(np.argmax(np.abs(m) / (np.sqrt(v) + 1e-5))), m.size + int(np.argmax(v))):
        forged = moments.copy()
        forged[1, entry] *= 1.5 if entry < m.size else 0.5  # the m that moves a step most; the largest v halved
        _, failure = replay({**run_, "moments": base64.b64encode(forged.tobytes()).decode()}, 8, bar)
        assert clause(failure).startswith("at update 2 of 3, Adam's moments"), failure
    with pytest.raises(Malformed, match="moments"):
        replay({key: value for key, value in run_.items() if key != "moments"}, 8, bar)


def test_nothing_else_a_run_hands_back_enters_the_replay(course):
    """The hyperparameters are the course's: a Config, or anything else added to a run, changes nothing of its
    replay."""
    run_, bar = reference_run(course, 8, 3)
    forged = {**run_, "config": {"lr": 1e4, "adam_eps": 1.0, "max_grad_norm": 0.0, "epochs": 64, "minibatches": 512,
                                 "hidden": 256}, "lr": 1e4}
    assert replay(forged, 8, bar) == replay(run_, 8, bar) and replay(run_, 8, bar)[1] is None


def test_the_early_audit_keeps_what_the_judge_would_find_for_that_very_run(course):
    run_, bar = reference_run(course, 6, 3)
    grading = GradingRun()
    audits.start(grading, run_, 6, bar.model_dump(), replay_plain, "A.bar")
    assert audits.taken(grading, {**run_, "seed": 7}, 6, bar.model_dump(), replay_plain) is None  # another run: none
    assert audits.taken(GradingRun(), run_, 6, bar.model_dump(), replay_plain) is None  # another grading run: none
    kept = audits.taken(grading, run_, 6, bar.model_dump(), replay_plain)
    assert kept == replay(run_, 6, bar) and kept[1] is None
    assert audits.taken(grading, run_, 6, bar.model_dump(), replay_plain) is None  # taken once


def test_a_ratio_on_the_clips_edge_may_fall_on_either_side_and_no_other_may():
    from autograder.projects._shared.ppo import oracle
    from autograder.projects._shared.ppo.edges import EDGE, Edges, alternatives

    eps, logits = 0.2, np.array([[0.3, -0.4], [0.1, 0.2], [0.5, 0.5]])
    actions, advantages = np.array([0, 1, 0]), np.array([1.5, -0.7, 2.0])
    logp = log_softmax(logits)[np.arange(3), actions]
    # ratios: just above 1 + eps (A > 0: clipped, on the edge), just below 1 - eps (A < 0: clipped, on the edge), and
    # clearly above 1 + eps (clipped, not on the edge)
    logp_old = logp - np.log([(1 + eps) * (1 + EDGE / 10), (1 - eps) * (1 - EDGE / 10), 1.5])
    plain = oracle.clipped_surrogate(logits, actions, logp_old, advantages, eps)[1]
    assert not plain.any()  # all three terms clipped
    edges = Edges()
    edges.surrogate(logits, actions, logp_old, advantages, eps)
    assert edges.seen == [(0, 0), (0, 1)] and len(alternatives(edges.seen)) == 3
    flipped = Edges({(0, 1)}).surrogate(logits, actions, logp_old, advantages, eps)[1]
    rho = (1 - eps) * (1 - EDGE / 10)
    live = advantages[1] * rho * (np.eye(2)[1] - np.exp(log_softmax(logits[1]))) / 3
    assert np.allclose(flipped[1], live, rtol=1e-6) and not flipped[[0, 2]].any()
