"""The vectorized CartPole rollout keeps only real transitions, and bootstraps from the right observation."""

import gymnasium as gym
import numpy as np
import pytest

from rlkit.cartpole import Rollout, evaluate, make_envs
from rlkit.nn import mlp_forward, mlp_init


@pytest.fixture(scope="module")
def segment():
    rng = np.random.default_rng(3)
    actor, critic = mlp_init([4, 8, 2], rng, 1.0), mlp_init([4, 8, 1], rng, 1.0)
    rollout = Rollout(make_envs(5), seed=3)
    rollout.collect(lambda o: mlp_forward(actor, o)[0], lambda o: mlp_forward(critic, o)[0][:, 0], 10, rng)
    seg = rollout.collect(lambda o: mlp_forward(actor, o)[0], lambda o: mlp_forward(critic, o)[0][:, 0], 120, rng)
    return seg, critic


def test_reset_steps_are_exactly_the_steps_after_an_episode_ends(segment):
    seg, _ = segment
    done = seg.terminated | seg.truncated
    assert done.sum() >= 5, "a random policy should end several episodes in 120 steps"
    assert np.array_equal(~seg.valid[1:], done[:-1])
    assert np.all(seg.rewards[~seg.valid] == 0)


def test_every_valid_transition_is_the_cartpole_dynamics(segment):
    seg, _ = segment
    single = gym.make("CartPole-v1").unwrapped
    single.reset(seed=0)
    T, N = seg.valid.shape
    checked = 0
    for t in range(T - 1):
        for i in range(N):
            if seg.valid[t, i]:
                single.state, single.steps_beyond_terminated = seg.obs[t, i].astype(np.float64), None
                obs, reward, terminated, _, _ = single.step(int(seg.actions[t, i]))
                assert np.allclose(obs, seg.obs[t + 1, i], atol=1e-6) and reward == seg.rewards[t, i] == 1.0
                assert terminated == seg.terminated[t, i]
                checked += 1
    assert checked > 0.9 * T * N * (T - 1) / T


def test_the_value_after_an_episode_ends_is_that_of_its_final_observation(segment):
    seg, critic = segment
    ends = np.argwhere(seg.terminated[:-1])
    assert len(ends)
    for t, i in ends:
        final = seg.obs[t + 1, i]  # fed to the policy on the reset step: the terminal state
        assert abs(final[0]) > 2.4 or abs(final[2]) > 12 * 2 * np.pi / 360
        assert np.isclose(seg.values[t + 1, i], mlp_forward(critic, final[None])[0][0, 0])


def test_episode_returns_are_the_lengths_of_finished_episodes(segment):
    seg, _ = segment
    assert len(seg.episode_returns) == (seg.terminated | seg.truncated).sum()
    assert all(1 <= r <= 500 and r == int(r) for r in seg.episode_returns)


def test_evaluation_is_repeatable_and_bounded():
    actor = mlp_init([4, 8, 2], np.random.default_rng(0), 1.0)
    first, second = evaluate(actor, 6, seed=11), evaluate(actor, 6, seed=11)
    assert np.array_equal(first, second) and np.all((first >= 1) & (first <= 500))
