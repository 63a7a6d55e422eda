"""k-gram hashes and winnowing (Schleimer, Wilkerson and Aiken, 2003: the algorithm behind MOSS) on normalised tokens.

Every run of ``K`` consecutive tokens inside one unit is hashed; winnowing keeps, in every window of ``W`` consecutive
k-grams, the one with the smallest hash (the rightmost on ties), so any match of at least ``K + W - 1`` tokens is
sure to share a fingerprint, while a submission keeps about 2 / (W + 1) of its k-grams. The k-grams that never count
(the stubs', the class's common code) are left out *before* winnowing, so that they never take the place of a
window's fingerprint: what is left of a copied function is always fingerprinted.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from autograder.similarity.tokens import Tokens

K = 12  # tokens per k-gram: shorter runs of normalised tokens are idioms every solution shares
W = 8  # winnowing window: a shared run of K + W - 1 = 19 tokens (about two lines) is always found
_BASE = np.uint64(1_000_003)
_INVALID = np.uint64(2**64 - 1)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: the polynomial hash's low bits spread over all 64."""
    with np.errstate(over="ignore"):
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


def kgram_hashes(tokens: Tokens, k: int = K) -> np.ndarray:
    """The hash of the k-gram starting at each token (``len - k + 1`` of them); a k-gram that spans two units gets
    the invalid hash (2**64 - 1)."""
    n = len(tokens) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * _BASE + tokens.ids[j:j + n]
    h = _mix(h)
    h[h == _INVALID] -= np.uint64(1)
    h[tokens.unit[:n] != tokens.unit[k - 1:]] = _INVALID
    return h


def winnow(hashes: np.ndarray, w: int = W) -> np.ndarray:
    """The positions winnowing selects from a sequence of k-gram hashes (invalid ones never selected)."""
    if len(hashes) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(hashes) < w:
        chosen = np.array([len(hashes) - 1 - int(np.argmin(hashes[::-1]))])
    else:
        windows = sliding_window_view(hashes, w)[:, ::-1]  # reversed: argmin finds the rightmost minimum
        chosen = np.unique(np.arange(len(windows)) + (w - 1 - np.argmin(windows, axis=1)))
    return chosen[hashes[chosen] != _INVALID]


def select(hashes: np.ndarray, units: np.ndarray, w: int = W) -> tuple[np.ndarray, np.ndarray]:
    """Winnowing over a submission's k-grams, given as their hashes and units in the order they stand (k-grams left
    out, such as the stubs', simply absent): each unit winnowed alone, so moving one changes no other's. The distinct
    hashes selected, sorted, and the unit each was first selected in."""
    cuts = np.flatnonzero(units[1:] != units[:-1]) + 1
    starts = np.r_[0, cuts]
    chosen = np.concatenate([start + winnow(part, w) for start, part in zip(starts, np.split(hashes, cuts))] or
                            [np.zeros(0, dtype=np.int64)])
    values, first = np.unique(hashes[chosen], return_index=True)
    return values, units[chosen[first]].astype(np.int32)


def kgrams(tokens: Tokens, excluded: np.ndarray | None = None, k: int = K) -> tuple[np.ndarray, np.ndarray]:
    """The submission's valid k-gram hashes in order, with each one's unit; those in ``excluded`` (sorted) left out."""
    hashes = kgram_hashes(tokens, k)
    keep = hashes != _INVALID
    if excluded is not None and len(excluded):
        keep &= ~np.isin(hashes, excluded)
    return hashes[keep], tokens.unit[:len(hashes)][keep]


def fingerprints(tokens: Tokens, k: int = K, w: int = W, excluded: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The submission's fingerprints, the distinct hashes winnowing selects once the k-grams in ``excluded`` are left
    out, sorted; and the unit each one was first selected in."""
    return select(*kgrams(tokens, excluded, k), w)


def all_kgrams(tokens: Tokens, k: int = K) -> np.ndarray:
    """Every valid k-gram hash of the submission, distinct and sorted (what the stubs contribute: all of it)."""
    hashes = kgram_hashes(tokens, k)
    return np.unique(hashes[hashes != _INVALID])
