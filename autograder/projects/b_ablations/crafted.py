"""B.summary's crafted scores: per-seed scores made from the seed, each factor's row built so that the chapter's bar
and one of its plausible neighbours disagree on it, on every seed.

The bar (``oracle.matters``): |median(factor) - median(baseline)| > max(range(factor), range(baseline)), strictly.
Its neighbours, each a way students get it wrong, are in ``NEIGHBOURS``. Scores are whole numbers, so medians,
ranges and the ties at the bar are exact in floating point.
"""

from __future__ import annotations

import numpy as np

from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import DETAILS


def _median(s):
    return float(np.median(s))


def _mean(s):
    return float(np.mean(s))


def _rule(centre=_median, spread="larger", strict=True, signed=False):
    """The bar with one part swapped: the centre of a row, whose range is the spread, strict or not, |change| or not."""
    def matters(scores, name):
        change = centre(scores[name]) - centre(scores["baseline"])
        own, base = np.ptp(scores[name]), np.ptp(scores["baseline"])
        ranges = {"larger": max(own, base), "baseline": base, "factor": own}
        size = change if signed else abs(change)
        return bool(size > ranges[spread] if strict else size >= ranges[spread])
    return matters


NEIGHBOURS = {  # what a wrong matters does -> the rule it follows
    "compares the means instead of the medians": _rule(centre=_mean),
    "counts a change equal to the spread as clearing the bar (>= instead of >)": _rule(strict=False),
    "takes the spread of the baseline alone": _rule(spread="baseline"),
    "takes the spread of the ablated setting alone": _rule(spread="factor"),
    "compares the signed change, so a drop never clears the bar": _rule(signed=True),
}

# how each factor's row, in order, stands against the bar (what the message says of it)
ROWS = ["clears the bar by its median but not by its mean",
        "clears the bar by its mean but not by its median",
        "moves the median by exactly the baseline's spread (the wider one)",
        "moves the median by exactly its own spread, wider than the baseline's",
        "moves the median by more than the baseline's spread but less than its own, wider one",
        "drops the median by more than both spreads"]


def _row(rng, median: int, low: int, high: int) -> list[float]:
    """Three seeds' scores, shuffled: ``median`` with ``low`` below it and ``high`` above it."""
    return [float(v) for v in rng.permutation([median - low, median, median + high])]


def _lopsided(rng, spread: int) -> tuple[int, int]:
    """(below, above) the median for a row of range ``spread`` whose mean lies well above its median."""
    low = int(rng.integers(1, spread // 6 + 2))
    return low, spread - low


def score_cases(seed: int) -> tuple[dict, list[str]]:
    """{"baseline": scores, factor: scores, ...} and the factors in ``ROWS`` order: one row for each line of
    ``ROWS``, built around a baseline whose mean lies above its median."""
    rng = np.random.default_rng([seed, 22])
    names = [str(n) for n in rng.permutation(list(DETAILS))[:len(ROWS)]]
    spread = int(rng.integers(40, 90))
    centre = int(rng.integers(180, 320))
    low, high = _lopsided(rng, spread)
    scores = {"baseline": _row(rng, centre, low, high)}
    lean = int(rng.integers(2, 6))
    # median above the baseline by spread + lean; its mean pulled down by a low seed, so the means move less
    narrow = spread - int(rng.integers(1, 5))
    scores[names[0]] = _row(rng, centre + spread + lean, narrow - 1, 1)
    # median below by spread - lean; its mean pulled further down by a low seed, and the baseline's mean lies above
    # its median, so the means move by more than the spread
    scores[names[1]] = _row(rng, centre - spread + lean, narrow - 1, 1)
    # exactly at the bar, the baseline the wider
    scores[names[2]] = _row(rng, centre - spread, *_lopsided(rng, narrow))
    # exactly at the bar, the factor the wider
    wide = spread + int(rng.integers(10, 40))
    scores[names[3]] = _row(rng, centre + wide, *_lopsided(rng, wide))
    # between the two spreads, the factor the wider
    scores[names[4]] = _row(rng, centre + (spread + wide) // 2, *_lopsided(rng, wide))
    # a drop beyond both spreads
    scores[names[5]] = _row(rng, centre - wide - int(rng.integers(5, 30)), *_lopsided(rng, wide))
    return scores, names


def verdicts(scores: dict, names: list[str], rule=oracle.matters) -> list[bool]:
    return [bool(rule(scores, name)) for name in names]


def separated(scores: dict, names: list[str]) -> dict[str, list[str]]:
    """For each neighbour, the factors on which it disagrees with the bar (the test of these inputs: none empty)."""
    want = verdicts(scores, names)
    return {what: [n for n, w, v in zip(names, want, verdicts(scores, names, rule)) if v != w]
            for what, rule in NEIGHBOURS.items()}
