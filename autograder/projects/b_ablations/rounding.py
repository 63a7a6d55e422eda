"""B.switches' update batch: rows where the value clip does not bind, yet rounding makes its clipped branch the
larger, on every seed."""

from __future__ import annotations

import numpy as np

from rlkit.nn import mlp_forward

ROUNDED_ROWS = 2
NEAR = 1e-3  # how far such a row's return lies from V: close, so that the rounded branch's square is the larger


def rounded_inside_the_clip(agent, batch: dict, seed: int, c: dict) -> dict:
    """``batch`` with ``ROUNDED_ROWS`` rows of the update's first minibatch moved where the value clip does not bind
    but rounding makes the clipped branch the larger: the return ``NEAR`` above V, V_old inside the clip where
    V_old + clip(V - V_old) rounds away from V. The reference's gradient there is the clipped branch's, (clipped - R),
    which a gradient of another form misses; without such rows a seed meets one by chance (none on seed 7). ``c``:
    the update's config for ``seed``."""
    n = len(batch["actions"])
    first = np.random.default_rng(seed).permutation(n)[:n // c["minibatches"]]  # ppo_update's first draw
    values = mlp_forward(agent["critic"], batch["obs"][first])[0][:, 0]
    eps, old_values, returns = c["clip_eps"], batch["values"].copy(), batch["returns"].copy()
    rows = 0
    for row, v in zip(first, values):
        r = v + NEAR
        old = next((old for step in eps * np.arange(1, 64) / 64 for old in (v + step, v - step)
                    if (old + np.clip(v - old, -eps, eps) - r) ** 2 > (v - r) ** 2), None)
        if old is not None:
            old_values[row], returns[row], rows = old, r, rows + 1
        if rows == ROUNDED_ROWS:
            break
    return {**batch, "values": old_values, "returns": returns}
