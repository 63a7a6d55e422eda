"""Issue 15's proof of learning: A.bar credits a run only when the judge, replaying every update with the reference
from the student's own parameters, lands on the student's next parameters. Correct rewrites pass; each cheat earns 0
with a sentence naming the update that did not follow. Runs are short (12 updates, one seed) to keep the suite lean;
``benchmarks/a_proof_of_learning.py`` does the full 60 updates over 20 seed sets."""

import sys

import pytest

from autograder import paths
from conftest import grade_checks, mutate, write_submission

sys.path.insert(0, str(paths.KIT_ROOT / "benchmarks"))
from a_proof_of_learning import CHEATS, IMPLEMENTATIONS, UPDATE, proof, source_of  # noqa: E402

REFERENCE = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
STUB = (paths.ASSIGNMENTS / "A_ppo" / "ppo.py").read_text()
N_UPDATES = 12


def short(course, n_updates: int = N_UPDATES):
    """The course with A.bar cut to ``n_updates`` updates on one public seed."""
    project, check = course.projects["A"], course.projects["A"].checks["A.bar"]
    checks = {**project.checks, "A.bar": check.model_copy(update={"bar": {**check.bar, "n_updates": n_updates}})}
    return course.model_copy(update={"projects": {**course.projects, "A": project.model_copy(update={"checks": checks})},
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


def test_the_reference_earns_the_replayed_run(tmp_path, course):
    result = bar_of(tmp_path, course, REFERENCE)
    assert "did not follow" not in result["message"] and len(result["details"]["curves"][0]) == N_UPDATES, result


@pytest.mark.parametrize("cheat", ["forged jump at one update", "an update skipped",
                                   "weights trained elsewhere, loaded at the last update"])
def test_a_forged_update_is_caught_and_named(tmp_path, course, cheat):
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, CHEATS[cheat]))
    update = {"forged jump at one update": 7, "an update skipped": 5}.get(cheat, N_UPDATES)
    assert result["score"] == 0 and f"update {update} of {N_UPDATES} did not follow" in result["message"], result


def test_pretrained_weights_returned_by_train_earn_nothing(tmp_path, course):
    weights = ("\n\ndef train(envs, n_updates, n_steps, seed, config=Config(), progress=None):\n"
               "    agent = init_agent(np.random.default_rng(0), config)\n"
               "    return agent, [{'episode_return': 500.0}] * n_updates\n")
    result = bar_of(tmp_path, course, STUB + weights)
    assert result["score"] == 0 and "not implemented yet" in result["message"], result


def test_weights_trained_at_import_on_a_cartpole_of_its_own_earn_nothing(tmp_path, course):
    at_import = ("import gymnasium.envs.classic_control as _cc\n_env = _cc.CartPoleEnv().unwrapped\n_env.reset(seed=0)\n"
                 "for _ in range(50):\n    _env.step(0)\n"
                 "PRETRAINED = np.random.default_rng(3).normal(0, 0.3, 2531).astype(np.float32)\n\n\n")
    load = ("    start = 0\n    for p in optimizer.params:\n"
            "        p[...] = PRETRAINED[start:start + p.size].reshape(p.shape)\n        start += p.size\n"
            "    return {}\n")
    source = mutate(REFERENCE, "# ---------------------------------------------------------------- given: hyper",
                    at_import + "# ---------------------------------------------------------------- given: hyper")
    result = bar_of(tmp_path, course, mutate(source, UPDATE, load))
    assert result["score"] == 0 and f"update 1 of {N_UPDATES} did not follow" in result["message"], result


def test_weights_loaded_from_a_file_earn_nothing(tmp_path, course):
    load = ("    import json, pathlib\n"
            "    saved = json.loads((pathlib.Path(__file__).parent / 'weights.json').read_text())\n"
            "    for p in optimizer.params:\n        p[...] = saved\n    return {}\n")
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, load), {"weights.json": "0.125"})
    assert result["score"] == 0 and f"update 1 of {N_UPDATES} did not follow" in result["message"], result


def test_extra_steps_of_the_environments_earn_nothing(tmp_path, course):
    result = bar_of(tmp_path, course, mutate(REFERENCE, UPDATE, CHEATS["extra steps of the environments"]))
    assert result["score"] == 0 and "more than the budget" in result["message"], result
