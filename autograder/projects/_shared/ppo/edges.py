"""Ratios on the clip's edge, for the replay of an update.

The clipped surrogate's gradient jumps where a ratio crosses 1 + eps (A > 0) or 1 - eps (A < 0): the term is live on
one side and constant on the other. A correct implementation computing the ratio in float32, or as a quotient, can
land on the other side from the reference's float64 when the ratio is within rounding of the edge, and one such term
moves an update by about 1e-3, far beyond ``replay_tolerance`` (measured: 3 departures in about 110 honest 60-update
runs before this). So the replay records every term within ``EDGE`` (relative) of the edge, and when an update
departs it is replayed again with those terms taken on the other side (``alternatives``); a forger gains nothing
from terms on the edge, whose side any rounding decides.
"""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.ppo import oracle

EDGE = 1e-5  # |rho - edge| / edge below which either side is a correct computation's
MOST = 6  # an update that met more terms on the edge is not replayed again (honest runs: 0 to 2 per update)


class Edges:
    """The replay's surrogate: the reference's, with the terms in ``flips`` (call, row) taken on the other side of
    the clip; ``seen`` lists the (call, row) of every term on the edge, in order; ``dtype`` is the log-softmax's
    (``oracle.log_policy_and_ratio``)."""

    def __init__(self, flips=frozenset(), dtype=float):
        self.flips, self.seen, self.calls, self.dtype = frozenset(flips), [], 0, dtype

    def surrogate(self, logits, actions, logp_old, advantages, eps):
        """``oracle.clipped_surrogate``; a flipped term's gradient row becomes rho A (onehot(a) - pi) / B minus
        what it was (that row when live, 0 when clipped)."""
        logp, rho = parts = oracle.log_policy_and_ratio(logits, actions, logp_old, self.dtype)
        objective, grad = oracle.clipped_surrogate(logits, actions, logp_old, advantages, eps, parts)
        edge = np.where(advantages > 0, 1 + eps, 1 - eps)
        for i in np.flatnonzero((np.abs(rho - edge) <= EDGE * edge) & (advantages != 0)):
            self.seen.append((self.calls, int(i)))
            if (self.calls, int(i)) in self.flips:
                live = -rho[i] * advantages[i] * np.exp(logp[i]) / len(actions)
                live[actions[i]] += rho[i] * advantages[i] / len(actions)
                grad[i] = live - grad[i]
        self.calls += 1
        return objective, grad


def alternatives(seen: list) -> list:
    """Sets of terms to flip: each term alone, then all together; none when more than ``MOST`` were met, so that a
    departed update costs the judge at most ``MOST + 1`` more replays, whatever a forged result holds."""
    if not seen or len(seen) > MOST:
        return []
    return [frozenset([term]) for term in seen] + ([frozenset(seen)] if len(seen) > 1 else [])
