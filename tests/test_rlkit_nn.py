"""The networks students are given: backward against finite differences, Adam, clipping, orthogonal init,
and the categorical helpers."""

import numpy as np
import pytest

from rlkit import categorical
from rlkit.nn import Adam, clip_by_global_norm, flatten, global_norm, mlp_backward, mlp_forward, mlp_init, orthogonal


def test_backward_matches_finite_differences():
    rng = np.random.default_rng(0)
    layers = mlp_init([4, 6, 5, 3], rng, out_gain=0.5, dtype=np.float64)
    x, upstream = rng.normal(size=(7, 4)), rng.normal(size=(7, 3))

    def scalar():
        return float((mlp_forward(layers, x)[0] * upstream).sum())

    out, cache = mlp_forward(layers, x)
    grads, h = flatten(mlp_backward(layers, cache, upstream)), 1e-6
    for param, grad in zip(flatten(layers), grads):
        for index in np.ndindex(param.shape):
            saved = param[index]
            param[index] = saved + h
            up = scalar()
            param[index] = saved - h
            down = scalar()
            param[index] = saved
            assert abs((up - down) / (2 * h) - grad[index]) < 1e-6


@pytest.mark.parametrize("rows, cols, gain", [(4, 32, np.sqrt(2)), (32, 32, 1.0), (32, 2, 0.01)])
def test_orthogonal_init_has_orthonormal_rows_or_columns_times_the_gain(rows, cols, gain):
    W = orthogonal(rows, cols, gain, np.random.default_rng(1), dtype=np.float64)
    small = W @ W.T if rows <= cols else W.T @ W
    assert np.allclose(small, gain ** 2 * np.eye(min(rows, cols)))


def test_networks_are_float32_by_default():
    layers = mlp_init([4, 8, 2], np.random.default_rng(0), 1.0)
    assert all(p.dtype == np.float32 for p in flatten(layers))
    assert mlp_forward(layers, np.ones((3, 4), np.float32))[0].dtype == np.float32


def test_adam_first_step_has_the_size_of_the_learning_rate_and_converges_on_a_quadratic():
    x = np.array([3.0, -2.0])
    opt = Adam([x], lr=0.1, eps=1e-8)
    opt.step([2 * x])
    assert np.allclose(x, [2.9, -1.9])  # bias-corrected first step: lr * sign(g)
    for _ in range(500):
        opt.step([2 * x])
    assert np.abs(x).max() < 1e-2


def test_adam_eps_defaults_to_1e_5_and_lr_can_change_between_steps():
    opt = Adam([np.zeros(2)], lr=1.0)
    assert opt.eps == 1e-5
    opt.lr = 0.0
    opt.step([np.ones(2)])
    assert np.all(opt.params[0] == 0)


def test_clipping_scales_all_gradients_together():
    grads = [np.array([3.0, 0.0]), np.array([[4.0]])]
    clipped, norm = clip_by_global_norm(grads, 1.0)
    assert norm == 5.0 and np.isclose(global_norm(clipped), 1.0)
    assert np.allclose(clipped[0], [0.6, 0.0]) and np.allclose(clipped[1], [[0.8]])
    untouched, _ = clip_by_global_norm(grads, 10.0)
    assert untouched[0] is grads[0]


def test_log_softmax_is_stable_and_entropy_is_in_nats():
    logits = np.array([[1000.0, 0.0], [0.0, 0.0], [-5.0, 5.0]])
    logp = categorical.log_softmax(logits)
    assert np.all(np.isfinite(logp)) and np.allclose(np.exp(logp).sum(1), 1)
    assert np.isclose(categorical.entropy(logits)[1], np.log(2))
    assert categorical.entropy(logits)[0] < 1e-12
    assert np.allclose(categorical.log_prob(logits, np.array([0, 1, 1])), logp[[0, 1, 2], [0, 1, 1]])


def test_sampling_follows_the_probabilities():
    logits = np.tile([[0.0, np.log(3.0)]], (40000, 1))  # pi = (1/4, 3/4)
    actions = categorical.sample(logits, np.random.default_rng(0))
    assert set(np.unique(actions)) == {0, 1}
    assert abs(actions.mean() - 0.75) < 0.01
