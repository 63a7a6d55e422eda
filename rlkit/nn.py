"""Small numpy networks for PPO: a tanh MLP with its backward pass, Adam, and global-norm gradient clipping.

Parameters are plain data, a list of ``[W, b]`` per layer, so a trained network can be saved, sent between processes
and evaluated by anyone with ``mlp_forward``. Networks are float32 by default: on CPUs without AVX-512 numpy's float64
tanh is several times slower, and float32 is what deep-RL code uses anyway. Pass ``dtype=np.float64`` for exact
gradient checks.
"""

import numpy as np


def orthogonal(rows: int, cols: int, gain: float, rng: np.random.Generator, dtype=np.float32) -> np.ndarray:
    """A (rows, cols) matrix with orthonormal rows or columns, scaled by ``gain`` (Saxe et al., 2014)."""
    q, r = np.linalg.qr(rng.normal(size=(max(rows, cols), min(rows, cols))))
    q *= np.sign(np.diag(r))  # makes the decomposition unique, so the init is uniform over orthogonal matrices
    return (gain * (q if rows >= cols else q.T)).astype(dtype)


def mlp_init(sizes, rng, out_gain: float, hidden_gain: float = np.sqrt(2), dtype=np.float32) -> list:
    """Layers ``sizes[0] -> ... -> sizes[-1]``: orthogonal weights (``hidden_gain``, last layer ``out_gain``), zero
    biases."""
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        gain = out_gain if i == len(sizes) - 2 else hidden_gain
        layers.append([orthogonal(fan_in, fan_out, gain, rng, dtype), np.zeros(fan_out, dtype)])
    return layers


def mlp_init_gaussian(sizes, rng, dtype=np.float32) -> list:
    """Layers ``sizes[0] -> ... -> sizes[-1]`` with plain Gaussian weights W ~ N(0, 1 / fan_in) and zero biases:
    the init a network gets without PPO's orthogonal scheme (no special gain for any layer)."""
    return [[(rng.normal(size=(fan_in, fan_out)) / np.sqrt(fan_in)).astype(dtype), np.zeros(fan_out, dtype)]
            for fan_in, fan_out in zip(sizes[:-1], sizes[1:])]


def mlp_forward(layers, x):
    """Output of the MLP (tanh on every hidden layer, linear output) and the activations ``backward`` needs."""
    activations = [x]
    for i, (W, b) in enumerate(layers):
        x = x @ W + b
        if i < len(layers) - 1:
            x = np.tanh(x)
        activations.append(x)
    return x, activations


def mlp_backward(layers, activations, grad_out) -> list:
    """Gradients ``[[dW, db], ...]`` of a scalar whose gradient with respect to the MLP's output is ``grad_out``."""
    grads = [None] * len(layers)
    g = grad_out.astype(layers[0][0].dtype, copy=False)
    for i in reversed(range(len(layers))):
        if i < len(layers) - 1:
            g = g * (1 - activations[i + 1] ** 2)  # tanh' = 1 - tanh^2
        grads[i] = [activations[i].T @ g, g.sum(0)]
        if i:  # the gradient with respect to the input itself is not needed
            g = g @ layers[i][0].T
    return grads


def flatten(nested) -> list:
    """The arrays of nested layer lists, in order: what the optimizer and the clipping work on."""
    if isinstance(nested, np.ndarray):
        return [nested]
    return [array for item in nested for array in flatten(item)]


def global_norm(grads) -> float:
    return float(np.sqrt(sum(float((g * g).sum()) for g in grads)))


def clip_by_global_norm(grads, max_norm: float):
    """Scale all gradients together so their joint L2 norm is at most ``max_norm``; return them and the norm before."""
    norm = global_norm(grads)
    if norm > max_norm:
        grads = [g * (max_norm / norm) for g in grads]
    return grads, norm


class Adam:
    """Adam (Kingma & Ba, 2015) over a list of arrays, updated in place; ``lr`` may be changed between steps.

    The moments live in one flat vector, so a step costs a handful of numpy calls whatever the number of layers.
    """

    def __init__(self, params, lr: float, eps: float = 1e-5, betas=(0.9, 0.999)):
        self.params, self.lr, self.eps, (self.beta1, self.beta2) = list(params), lr, eps, betas
        size = sum(p.size for p in self.params)
        dtype = self.params[0].dtype
        self.m, self.v, self.t = np.zeros(size, dtype), np.zeros(size, dtype), 0

    def step(self, grads) -> None:
        self.t += 1
        g = np.concatenate([np.ravel(x) for x in grads]).astype(self.m.dtype, copy=False)
        self.m *= self.beta1
        self.m += (1 - self.beta1) * g
        self.v *= self.beta2
        self.v += (1 - self.beta2) * g * g
        m_hat, v_hat = self.m / (1 - self.beta1 ** self.t), self.v / (1 - self.beta2 ** self.t)
        update = self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        start = 0
        for p in self.params:
            p -= update[start:start + p.size].reshape(p.shape)
            start += p.size
