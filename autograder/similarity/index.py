"""One project's comparison: fingerprints per submission, boilerplate and common code dropped, an inverted index from
fingerprint to submissions, and a score for every pair that shares one (pairs that share nothing are never looked at).

Dropped before winnowing, so that they never take a fingerprint's place:
  * **boilerplate**: every k-gram of the released stubs (the given code, the docstrings' neighbours, the check cells
    of the notebook); a submission left as released has no fingerprint at all;
  * **common code**: a k-gram found in more than ``common`` of the class's submissions (and more than
    ``COMMON_AT_LEAST`` of them): an idiom the whole class writes alike (MOSS's ``-m``) is no evidence of copying.

What is left is weighed by rarity: a fingerprint held by ``c`` submissions weighs ``1 / c``, so code only two
submissions share counts most, and code a handful of honest students happen to write alike counts little.

A pair's score is the larger of two shares:
  * **whole**: the weight of the fingerprints the two share, over the weight of the smaller submission's
    fingerprints; scaled down when that submission has fewer than ``MIN_FINGERPRINTS`` (one that wrote almost
    nothing does not score 100 % on one shared line);
  * **one function**: how far the other side stands out among the class's holders of one function (or notebook
    cell) of either side, found anywhere in it (``standing_out``): the share of the function's fingerprints it
    holds beyond what the next closest submission holds, split among submissions tied at the top; scaled down for a
    function of fewer than ``MIN_UNIT`` fingerprints. A copied function stands out even inside a submission written
    otherwise alone (its copier and its source hold all of it, the rest of the class less), while a function that
    a cluster of students write alike (a short one, or a common way to write a long one) is evidence for none of
    their pairs. The price: one function passed around among ``k`` students scores ``2 / k`` for each of their
    pairs; whole submissions passed around still score as whole copies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable

import numpy as np

from autograder.similarity.fingerprints import K, W, all_kgrams, kgrams, select
from autograder.similarity.overlap import Overlap, shared_counts
from autograder.similarity.regions import Region, matched_regions  # noqa: F401  (re-exported for the pages)
from autograder.similarity.tokens import CodeFile, tokens_of

COMMON_SHARE = 0.1  # a k-gram in more than this share of the class is common code ...
COMMON_AT_LEAST = 10  # ... once it is in more than this many submissions too (small classes keep their pairs)
MIN_FINGERPRINTS = 20  # fewer fingerprints than this (about 100 tokens) scale the whole share down
MIN_UNIT = 15  # a function with fewer fingerprints than this (about 80 tokens, 7 lines) has its share scaled down
FLAG = 0.5  # pairs scoring at least this are flagged for a second look


@dataclass
class Source:
    """One side of a comparison: a student's submission, the reference, or an outside folder (``--against``)."""

    name: str
    kind: str  # "student", "reference" or "against"
    load: Callable[[], list[CodeFile]]
    fingerprints: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    units: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # each fingerprint's unit
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unit_names: list[str] = field(default_factory=list)
    files: int = 0
    tokens: int = 0
    kgrams: tuple[np.ndarray, np.ndarray] | None = None  # while fingerprinting: its k-grams (hashes, units) in order

    @property
    def size(self) -> int:
        return len(self.fingerprints)


@dataclass
class Pair:
    a: int  # indices into the project's sources; ``a`` is a student whenever one of the two is
    b: int
    shared: int  # fingerprints in common
    whole: float  # the whole-submission share
    unit: float = 0.0  # the best one-function score (``standing_out``, scaled below MIN_UNIT fingerprints)
    unit_name: str = ""  # that function, "<side>: <file>: <function>"
    flagged: bool = False

    @property
    def score(self) -> float:
        return max(self.whole, self.unit)


@dataclass
class ProjectComparison:
    project: str
    sources: list[Source]
    boilerplate: np.ndarray  # every k-gram of the stubs
    common: np.ndarray  # k-grams dropped as common code
    common_limit: int  # a k-gram in more submissions than this was common
    pairs: list[Pair]  # every pair sharing a fingerprint, best first
    students: int
    stub_files: list[str]

    def excluded(self) -> np.ndarray:
        return np.union1d(self.boilerplate, self.common)


def boilerplate_of(stubs: list[CodeFile]) -> np.ndarray:
    """Every k-gram hash of the stub files, each file on its own (so none spans two)."""
    return np.unique(np.concatenate([all_kgrams(tokens_of([code])) for code in stubs] or
                                    [np.zeros(0, dtype=np.uint64)]))


def read_sources(sources: list[Source], boilerplate: np.ndarray) -> None:
    """Each source's k-grams in order, the stubs' left out, and its functions' names (in place)."""
    for source in sources:
        files = source.load()
        tokens = tokens_of(files)
        source.kgrams = kgrams(tokens, boilerplate)
        source.unit_names = tokens.unit_names
        source.files, source.tokens = len(files), len(tokens)


def common_kgrams(sources: list[Source], share: float) -> tuple[np.ndarray, int]:
    """The k-grams in more than ``share`` of the students' submissions (and more than COMMON_AT_LEAST), and that
    limit."""
    students = [np.unique(s.kgrams[0]) for s in sources if s.kind == "student" and s.kgrams is not None]
    limit = max(COMMON_AT_LEAST, math.floor(share * len(students)))
    if not students:
        return np.zeros(0, dtype=np.uint64), limit
    values, counts = np.unique(np.concatenate(students), return_counts=True)
    return values[counts > limit], limit


def fingerprint_sources(sources: list[Source], common: np.ndarray) -> None:
    """Each source's fingerprints and their functions: winnowing over its k-grams once the common ones are left out
    (in place; the k-grams are let go)."""
    for source in sources:
        hashes, units = source.kgrams
        if len(common):
            keep = ~np.isin(hashes, common)
            hashes, units = hashes[keep], units[keep]
        source.fingerprints, source.units = select(hashes, units, W)
        source.kgrams = None


def weigh(sources: list[Source]) -> None:
    """Each fingerprint's weight, 1 / the number of sources holding it (in place)."""
    values, counts = np.unique(np.concatenate([s.fingerprints for s in sources] or [np.zeros(0, np.uint64)]),
                               return_counts=True)
    for source in sources:
        source.weights = 1.0 / counts[np.searchsorted(values, source.fingerprints)] if source.size else np.zeros(0)


def overlap_of(sources: list[Source]) -> tuple[Overlap, np.ndarray]:
    """What every two sources share, and where each source's functions start in the numbering over all sources."""
    first_unit = np.cumsum([0] + [len(s.unit_names) for s in sources])
    empty = np.zeros(0, dtype=np.int64)
    values = np.concatenate([s.fingerprints for s in sources] or [np.zeros(0, dtype=np.uint64)])
    owners = np.concatenate([np.full(s.size, i, dtype=np.int64) for i, s in enumerate(sources)] or [empty])
    units = np.concatenate([s.units.astype(np.int64) + first_unit[i] for i, s in enumerate(sources)] or [empty])
    weights = np.concatenate([s.weights for s in sources] or [np.zeros(0)])
    return shared_counts(values, owners, units, weights, len(sources)), first_unit


def standing_out(unit: np.ndarray, shared: np.ndarray, size: np.ndarray) -> np.ndarray:
    """For each record (a function ``unit``, another source holding ``shared`` of its ``size`` fingerprints): how far
    that source stands out among all the class's holders of the function. Only the sources holding the most of it
    score: the share they hold beyond the next best holder's, ``(k1 - k2) / (size - k2)``, split among those tied
    at the top, ``2 / (1 + tied)``; everyone else scores 0. One function copied: its copier and its source alone
    hold all of it, 1. A function a cluster of students write alike: ``2 / (1 + cluster)``. An honest nearest
    neighbour, a little closer than the next: little."""
    order = np.lexsort((-shared, unit))
    unit_s, shared_s = unit[order], shared[order]
    first = np.r_[True, unit_s[1:] != unit_s[:-1]]
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    top = shared_s[starts][group]
    at_top = shared_s == top
    tied = np.bincount(group, weights=at_top)[group]
    below = np.where(at_top, -1, shared_s)
    runner_up = np.maximum(np.maximum.reduceat(below, starts)[group], 0)
    gap = (top - runner_up) / np.maximum(size[unit_s] - runner_up, 1)
    score = np.where(at_top, gap * 2 / (1 + tied), 0.0)
    out = np.empty(len(score))
    out[order] = score
    return out


def best_functions(sources: list[Source], overlap: Overlap, first_unit: np.ndarray, pair_keys: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """For each pair (``pair_keys``: a * n + b, sorted), the best score of one function of either side held by the
    other (``standing_out``), scaled down for a function of fewer than MIN_UNIT fingerprints; and which function
    (numbered over all sources; -1 for none)."""
    n = len(sources)
    best, which = np.zeros(len(pair_keys)), np.full(len(pair_keys), -1, dtype=np.int64)
    if not len(overlap.unit):
        return best, which
    owner_of = np.repeat(np.arange(n), np.diff(first_unit))
    all_units = np.concatenate([s.units.astype(np.int64) + first_unit[i] for i, s in enumerate(sources)])
    sizes = np.bincount(all_units, minlength=first_unit[-1])
    unit, other = overlap.unit, overlap.other
    share = standing_out(unit, overlap.unit_shared, sizes) * np.minimum(1.0, sizes[unit] / MIN_UNIT)
    mine = owner_of[unit]
    keys = np.minimum(mine, other) * n + np.maximum(mine, other)
    order = np.lexsort((-share, keys))
    keys, share, unit = keys[order], share[order], unit[order]
    top = np.r_[True, keys[1:] != keys[:-1]]
    at = np.searchsorted(pair_keys, keys[top])
    found = (at < len(pair_keys)) & (pair_keys[np.minimum(at, len(pair_keys) - 1)] == keys[top])
    best[at[found]] = np.minimum(share[top][found], 1.0)
    which[at[found]] = unit[top][found]
    return best, which


def ranking(pair: Pair) -> tuple:
    """The report's order: by similarity; at equal similarity (to rounding: a share summed from weights may miss 1
    by a hair), whole copies first, then by the fingerprints shared."""
    return -round(pair.score, 9), -round(pair.whole, 9), -pair.shared, pair.a, pair.b


def compare(project: str, sources: list[Source], stubs: list[CodeFile], common: float = COMMON_SHARE,
            flag: float = FLAG) -> ProjectComparison:
    """Read every source, drop the stubs' and the common k-grams, fingerprint what is left, and score every pair
    that shares a fingerprint. Pairs of two non-students (the reference and an outside folder) are left out."""
    boilerplate = boilerplate_of(stubs)
    read_sources(sources, boilerplate)
    common_set, limit = common_kgrams(sources, common)
    fingerprint_sources(sources, common_set)
    weigh(sources)
    overlap, first_unit = overlap_of(sources)
    n = len(sources)
    a, b, shared, weight = overlap.a, overlap.b, overlap.shared, overlap.weight
    student = np.array([s.kind == "student" for s in sources], dtype=bool)
    totals = np.array([s.weights.sum() for s in sources])
    sizes = np.array([s.size for s in sources])
    keep = student[a] | student[b] if len(a) else np.zeros(0, dtype=bool)
    a, b, shared, weight = a[keep], b[keep], shared[keep], weight[keep]
    smaller = np.where(totals[a] <= totals[b], a, b)
    whole = weight / np.maximum(totals[smaller], 1e-12) * np.minimum(1.0, sizes[smaller] / MIN_FINGERPRINTS)
    unit, which = best_functions(sources, overlap, first_unit, a * n + b)
    owner_of = np.repeat(np.arange(n), np.diff(first_unit))
    pairs = []
    for x, y, count, share, one, u in zip(a.tolist(), b.tolist(), shared.tolist(), whole.tolist(), unit.tolist(),
                                          which.tolist()):
        if not student[x]:  # the student first
            x, y = y, x
        pair = Pair(x, y, count, min(share, 1.0), one)
        if u >= 0:
            side = sources[owner_of[u]]
            pair.unit_name = f"{side.name}: {side.unit_names[u - first_unit[owner_of[u]]]}"
        pair.flagged = pair.score >= flag
        pairs.append(pair)
    pairs.sort(key=ranking)
    return ProjectComparison(project, sources, boilerplate, common_set, limit, pairs,
                             int(student.sum()), [code.name for code in stubs])


__all__ = ["K", "W", "Source", "Pair", "ProjectComparison", "compare", "matched_regions", "COMMON_SHARE", "FLAG",
           "MIN_FINGERPRINTS", "MIN_UNIT"]
