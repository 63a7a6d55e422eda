"""Benchmark: how far stacking the runs of one audit could cut the judge's replayed update, at best.

    .venv/bin/python -m benchmarks.replay_batching [--reps 15] [--runs 1,6,18]

Times one PPO update of the course's size (6 epochs of 8 minibatches of 255 rows, the 32-wide actor and critic, the
clip's edge looked for, gradients clipped, Adam) two ways, one BLAS thread, interleaved rep by rep:

- the judge's own update (``oracle.ppo_update`` with ``Edges.surrogate``, as ``replay.audit`` calls it), one run after
  another;
- the same arithmetic written over R runs stacked on a leading axis (``stacked_update``): every numpy call does the
  work of all R runs, matrix products included, with every run's minibatch the same size.

The stacked form is a lower bound, not a candidate: the judge cannot use it as it is, since runs differ in batch size
and a padded product or row sum rounds differently from the child's (docs/benchmarks.md), and it leaves out what a
real batched replay would add (per-run permutations, departures, the clip's-edge retries). Whatever a batched replay
costs, it costs at least this. Prints the median milliseconds per run and update of each, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits


from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.ppo.edges import EDGE, Edges
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from autograder.projects._shared.proof import adam, init_agent

ROWS = 2040  # a batch of 64 x 32 steps less a few reset steps


def batches(r: int, rng) -> dict:
    """R batches of ``ROWS`` transitions, stacked on axis 0 (random numbers: the arithmetic is what is timed)."""
    return {"obs": rng.normal(size=(r, ROWS, 4)).astype(np.float32), "actions": rng.integers(0, 2, (r, ROWS)),
            "logp": np.log(rng.uniform(0.2, 0.8, (r, ROWS))), "advantages": 3 * rng.normal(size=(r, ROWS)),
            "returns": rng.normal(size=(r, ROWS)), "values": rng.normal(size=(r, ROWS))}


def one_by_one(agents, optimizers, data, c) -> None:
    """The judge's update of each run in turn."""
    for i, (agent, optimizer) in enumerate(zip(agents, optimizers)):
        batch = {key: value[i] for key, value in data.items()}
        oracle.ppo_update(agent, optimizer, batch, c, np.random.default_rng(i), surrogate=Edges().surrogate)


def forward(layers, x) -> list:
    """The activations of a tanh MLP on stacked inputs (R, rows, in) with stacked layers (R, in, out)."""
    out = [x]
    for i, (W, b) in enumerate(layers):
        x = x @ W + b
        out.append(np.tanh(x) if i < len(layers) - 1 else x)
    return out


def backward(layers, acts, g) -> list:
    """Stacked gradients [dW, db] per layer of a scalar whose gradient with respect to the output is ``g``."""
    grads = []
    for i in reversed(range(len(layers))):
        if i < len(layers) - 1:
            g = g * (1 - acts[i + 1] ** 2)
        grads[:0] = [acts[i].transpose(0, 2, 1) @ g, g.sum(1, keepdims=True)]
        if i:
            g = g @ layers[i][0].transpose(0, 2, 1)
    return grads


def stacked_update(actor, critic, moments, data, c, rng) -> None:
    """One update of R stacked runs (equal sizes), the judge's arithmetic with every call over all runs."""
    r, n, eps = data["actions"].shape[0], c["minibatches"], c["clip_eps"]
    size = ROWS // n
    m, v, t = moments
    for _ in range(c["epochs"]):
        perm = np.argsort(rng.random((r, ROWS)), axis=1)[:, :size * n]  # a permutation per run
        mb = {key: np.take_along_axis(value, perm if value.ndim == 2 else perm[..., None], 1)
              for key, value in data.items()}
        for k in range(n):
            rows = slice(k * size, (k + 1) * size)
            x, a, old, adv, ret = (mb[key][:, rows] for key in ("obs", "actions", "logp", "advantages", "returns"))
            adv = (adv - adv.mean(1, keepdims=True)) / (adv.std(1, keepdims=True) + 1e-8)
            a_acts, c_acts = forward(actor, x), forward(critic, x)
            logits = a_acts[-1].astype(float)
            shifted = logits - logits.max(-1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
            rho = np.exp(np.take_along_axis(logp, a[..., None], -1)[..., 0] - old)
            live = ~(((adv > 0) & (rho > 1 + eps)) | ((adv < 0) & (rho < 1 - eps)))
            edge = np.where(adv > 0, 1 + eps, 1 - eps)
            np.flatnonzero((np.abs(rho - edge) <= EDGE * edge) & (adv != 0))  # the edge search the judge pays for
            onehot = -np.exp(logp)
            np.put_along_axis(onehot, a[..., None], np.take_along_axis(onehot, a[..., None], -1) + 1.0, -1)
            d_logits = -(live * rho * adv)[..., None] * onehot / size
            d_values = c["vf_coef"] * (c_acts[-1][..., 0].astype(float) - ret)[..., None] / size
            grads = backward(actor, a_acts, d_logits.astype(np.float32))
            grads += backward(critic, c_acts, d_values.astype(np.float32))
            flat = np.concatenate([g.reshape(r, -1) for g in grads], 1)
            norm = np.sqrt((flat * flat).sum(1, keepdims=True))
            flat = np.where(norm > c["max_grad_norm"], flat * (c["max_grad_norm"] / norm), flat)
            t += 1
            m *= 0.9
            m += 0.1 * flat
            v *= 0.999
            v += 0.001 * flat * flat
            step = c["lr"] * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + c["adam_eps"])
            start = 0
            for W, b in actor + critic:
                for p in (W, b):
                    p -= step[:, start:start + p[0].size].reshape(p.shape)
                    start += p[0].size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--runs", default="1,6,18", help="numbers of runs stacked (comma-separated)")
    args = parser.parse_args()
    c = Hyperparameters().model_dump()
    rng = np.random.default_rng(0)
    with threadpool_limits(limits=1):
        for r in (int(x) for x in args.runs.split(",")):
            data = batches(r, rng)
            agents = [init_agent(np.random.default_rng(i), c["hidden"]) for i in range(r)]
            optimizers = [adam(agent, c["lr"], c["adam_eps"]) for agent in agents]
            stacked = [[(np.stack([agent[net][i][0] for agent in agents]),
                         np.stack([agent[net][i][1] for agent in agents])[:, None]) for i in range(3)]
                       for net in ("actor", "critic")]
            size = optimizers[0].m.size
            moments = (np.zeros((r, size), np.float32), np.zeros((r, size), np.float32), 0)
            times = {"one by one": [], "stacked": []}
            for _ in range(args.reps):
                started = time.perf_counter()
                one_by_one(agents, optimizers, data, c)
                times["one by one"].append(time.perf_counter() - started)
                started = time.perf_counter()
                stacked_update(*stacked, moments, data, c, rng)
                times["stacked"].append(time.perf_counter() - started)
            ms = {key: 1e3 * statistics.median(values) / r for key, values in times.items()}
            print(f"{r:3d} runs: the judge's update {ms['one by one']:.1f} ms per run, stacked {ms['stacked']:.1f} ms "
                  f"per run (ratio {ms['stacked'] / ms['one by one']:.2f})", flush=True)


if __name__ == "__main__":
    main()
