"""What every two submissions of a project share, counted through an inverted index: fingerprints sorted with their
owners, each run of one fingerprint giving the pairs of its owners. Pairs that share nothing are never looked at,
so the cost grows with what the class shares, not with the square of its size.

Counted per pair: the fingerprints in common and their weight; and, per function (unit) of either side, how many of
that function's fingerprints the other side holds anywhere, so that one copied function shows even when the rest of
the two submissions differ or the copier moved it into another file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK = 2_000_000  # pair records made at once (some 100 MB of temporaries)


@dataclass
class Overlap:
    """Every pair of sources sharing a fingerprint (``a < b``), and per (function, other source) what is shared."""

    a: np.ndarray
    b: np.ndarray
    shared: np.ndarray  # fingerprints in common
    weight: np.ndarray  # their summed weight
    unit: np.ndarray  # per record: a function, numbered over all sources
    other: np.ndarray  # the source it is compared with
    unit_shared: np.ndarray  # how many of that function's fingerprints the other source holds


class _Sums:
    """Values summed per integer key, merged as they come so that memory holds what is distinct, not every record."""

    MERGE_AT = 8_000_000

    def __init__(self, columns: int):
        self.keys: list[np.ndarray] = []
        self.values: list[list[np.ndarray]] = [[] for _ in range(columns)]
        self.pending = 0

    def add(self, keys: np.ndarray, *values: np.ndarray) -> None:
        distinct, inverse = np.unique(keys, return_inverse=True)
        self.keys.append(distinct)
        for column, value in zip(self.values, values):
            column.append(np.bincount(inverse, weights=value, minlength=len(distinct)))
        self.pending += len(distinct)
        if self.pending > self.MERGE_AT and len(self.keys) > 1:
            self._merge()

    def _merge(self) -> None:
        distinct, inverse = np.unique(np.concatenate(self.keys), return_inverse=True)
        self.keys = [distinct]
        self.values = [[np.bincount(inverse, weights=np.concatenate(column), minlength=len(distinct))]
                       for column in self.values]
        self.pending = len(distinct)

    def result(self) -> tuple[np.ndarray, ...]:
        if not self.keys:
            return (np.zeros(0, dtype=np.int64),) + tuple(np.zeros(0) for _ in self.values)
        self._merge()
        return (self.keys[0],) + tuple(column[0] for column in self.values)


def shared_counts(values: np.ndarray, owners: np.ndarray, units: np.ndarray, weights: np.ndarray,
                  n_sources: int) -> Overlap:
    """``values``, ``owners``, ``units``, ``weights``: every source's fingerprints one after another (a source holds
    a fingerprint once), with its source, its function (numbered over all sources) and its weight."""
    n = np.int64(n_sources)
    order = np.argsort(values, kind="stable")  # owners ascend within a run: they were given in source order
    values, owners, units, weights = values[order], owners[order], units[order], weights[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, len(values)])
    pairs, functions = _Sums(2), _Sums(1)
    for size in np.unique(sizes[sizes >= 2]):
        first = starts[sizes == size]
        i, j = np.triu_indices(int(size), 1)
        rows = max(1, _CHUNK // len(i))
        for lo in range(0, len(first), rows):
            at = first[lo:lo + rows, None] + np.arange(size)
            member, unit = owners[at], units[at]
            w = np.repeat(weights[at][:, 0], len(i))  # every holder of a fingerprint gives it the same weight
            pairs.add((member[:, i] * n + member[:, j]).ravel(), np.ones(len(w)), w)
            functions.add(np.concatenate([(unit[:, i] * n + member[:, j]).ravel(),
                                          (unit[:, j] * n + member[:, i]).ravel()]), np.ones(2 * len(w)))
    keys, counts, summed = pairs.result()
    unit_keys, unit_counts = functions.result()
    return Overlap(keys // n, keys % n, counts.astype(np.int64), summed, unit_keys // n, unit_keys % n,
                   unit_counts.astype(np.int64))
