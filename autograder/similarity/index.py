"""One project's comparison: fingerprints per submission, boilerplate and common code dropped, an inverted index from
fingerprint to submissions, and a score for every pair that shares one (pairs that share nothing are never looked at).

Dropped before any pair is scored:
  * **boilerplate**: every k-gram of the released stubs (the given code, the docstrings' neighbours, the check cells
    of the notebook); a submission left as released has no fingerprint at all;
  * **common code**: a fingerprint found in more than ``common`` of the class's submissions (and more than
    ``COMMON_AT_LEAST`` of them): an idiom the whole class writes alike (MOSS's ``-m``) is no evidence of copying.

What is left is weighed by rarity: a fingerprint held by ``c`` submissions weighs ``1 / c``, so code only two
submissions share counts most, and code a handful of honest students happen to write alike counts little.

A pair's score is the larger of two shares:
  * **whole**: the weight of the fingerprints the two share, over the weight of the smaller submission's
    fingerprints; scaled down when that submission has fewer than ``MIN_FINGERPRINTS`` (one that wrote almost
    nothing does not score 100 % on one shared line);
  * **one function**: the same share for a single function (or notebook cell) of either side, among those with at
    least ``MIN_UNIT`` fingerprints: a copied function stands out even inside a submission written otherwise alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable

import numpy as np

from autograder.similarity.fingerprints import K, W, all_kgrams, fingerprints, kgram_hashes
from autograder.similarity.tokens import CodeFile, Tokens, tokens_of

COMMON_SHARE = 0.1  # a fingerprint in more than this share of the class is common code ...
COMMON_AT_LEAST = 10  # ... once it is in more than this many submissions too (small classes keep their pairs)
MIN_FINGERPRINTS = 20  # fewer fingerprints than this (about 100 tokens) scale the whole share down
MIN_UNIT = 15  # a function needs this many fingerprints (about 80 tokens, 7 lines) to be scored on its own ...
MIN_UNIT_SHARED = 8  # ... and a pair this many shared fingerprints for its functions to be looked at
FLAG = 0.5  # pairs scoring at least this are flagged for a second look
_PAIR_CHUNK = 4_000_000  # pair keys made at once while counting (32 MB)


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

    @property
    def size(self) -> int:
        return len(self.fingerprints)

    def keep(self, mask: np.ndarray) -> None:
        self.fingerprints, self.units = self.fingerprints[mask], self.units[mask]


@dataclass
class Pair:
    a: int  # indices into the project's sources; ``a`` is a student whenever one of the two is
    b: int
    shared: int  # fingerprints in common
    whole: float  # the whole-submission share
    unit: float = 0.0  # the best one-function share
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
    common: np.ndarray  # fingerprints dropped as common code
    common_limit: int  # a fingerprint in more submissions than this was common
    pairs: list[Pair]  # every pair sharing a fingerprint, best first
    students: int
    stub_files: list[str]

    def excluded(self) -> np.ndarray:
        return np.union1d(self.boilerplate, self.common)


def boilerplate_of(stubs: list[CodeFile]) -> np.ndarray:
    """Every k-gram hash of the stub files, each file on its own (so none spans two)."""
    return np.unique(np.concatenate([all_kgrams(tokens_of([code])) for code in stubs] or
                                    [np.zeros(0, dtype=np.uint64)]))


def fingerprint_sources(sources: list[Source], boilerplate: np.ndarray) -> None:
    """Each source's fingerprints (and their units), boilerplate dropped (in place)."""
    for source in sources:
        files = source.load()
        tokens = tokens_of(files)
        source.fingerprints, source.units = fingerprints(tokens)
        source.unit_names = tokens.unit_names
        if len(boilerplate):
            source.keep(~np.isin(source.fingerprints, boilerplate, assume_unique=True))
        source.files, source.tokens = len(files), len(tokens)


def common_fingerprints(sources: list[Source], share: float) -> tuple[np.ndarray, int]:
    """The fingerprints in more than ``share`` of the students' submissions (and more than COMMON_AT_LEAST), and
    that limit."""
    students = [s.fingerprints for s in sources if s.kind == "student"]
    limit = max(COMMON_AT_LEAST, math.floor(share * len(students)))
    if not students:
        return np.zeros(0, dtype=np.uint64), limit
    values, counts = np.unique(np.concatenate(students), return_counts=True)
    return values[counts > limit], limit


def weigh(sources: list[Source]) -> None:
    """Each fingerprint's weight, 1 / the number of sources holding it (in place)."""
    values, counts = np.unique(np.concatenate([s.fingerprints for s in sources] or [np.zeros(0, np.uint64)]),
                               return_counts=True)
    for source in sources:
        source.weights = 1.0 / counts[np.searchsorted(values, source.fingerprints)] if source.size else np.zeros(0)


def shared_counts(sources: list[Source]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, shared fingerprints, their weight) for every pair of sources with a fingerprint in common, a < b,
    through the inverted index: fingerprints sorted with their owners, each run of one fingerprint giving its
    owners' pairs."""
    n = len(sources)
    empty = (np.zeros(0, dtype=np.int64),) * 3 + (np.zeros(0),)
    owners = np.concatenate([np.full(s.size, i, dtype=np.int64) for i, s in enumerate(sources)] or
                            [np.zeros(0, dtype=np.int64)])
    values = np.concatenate([s.fingerprints for s in sources] or [np.zeros(0, dtype=np.uint64)])
    if len(values) == 0:
        return empty
    order = np.argsort(values, kind="stable")
    values, owners = values[order], owners[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    sizes = np.diff(np.r_[starts, len(values)])
    found_keys, found_counts, found_weights = [], [], []
    for size in np.unique(sizes[sizes >= 2]):
        first = starts[sizes == size]
        i, j = np.triu_indices(int(size), 1)
        rows = max(1, _PAIR_CHUNK // len(i))
        for lo in range(0, len(first), rows):
            members = owners[first[lo:lo + rows, None] + np.arange(size)]  # owners ascend within a run (stable)
            keys, inverse = np.unique((members[:, i] * n + members[:, j]).ravel(), return_inverse=True)
            found_keys.append(keys)
            found_counts.append(np.bincount(inverse, minlength=len(keys)))
            found_weights.append(np.bincount(inverse, minlength=len(keys)) / size)
    if not found_keys:
        return empty
    keys, inverse = np.unique(np.concatenate(found_keys), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate(found_counts)).astype(np.int64)
    weights = np.bincount(inverse, weights=np.concatenate(found_weights))
    return keys // n, keys % n, counts, weights


def best_unit(left: Source, right: Source) -> tuple[float, str]:
    """The highest share of one function's fingerprint weight that the other side holds, over the functions of both
    sides with at least MIN_UNIT fingerprints; and that function's name."""
    _, in_left, in_right = np.intersect1d(left.fingerprints, right.fingerprints, assume_unique=True,
                                          return_indices=True)
    best, name = 0.0, ""
    for side, index in ((left, in_left), (right, in_right)):
        if not side.size:
            continue
        sizes = np.bincount(side.units, minlength=len(side.unit_names))
        totals = np.bincount(side.units, weights=side.weights, minlength=len(side.unit_names))
        shared = np.bincount(side.units[index], weights=side.weights[index], minlength=len(side.unit_names))
        shares = np.where(sizes >= MIN_UNIT, shared / np.maximum(totals, 1e-12), 0.0)
        top = int(np.argmax(shares))
        if shares[top] > best:
            best, name = float(shares[top]), f"{side.name}: {side.unit_names[top]}"
    return best, name


def compare(project: str, sources: list[Source], stubs: list[CodeFile], common: float = COMMON_SHARE,
            flag: float = FLAG) -> ProjectComparison:
    """Fingerprint every source, drop the stubs' and the common fingerprints, and score every pair that shares one.
    Pairs of two non-students (the reference and an outside folder) are left out."""
    boilerplate = boilerplate_of(stubs)
    fingerprint_sources(sources, boilerplate)
    common_set, limit = common_fingerprints(sources, common)
    if len(common_set):
        for source in sources:
            source.keep(~np.isin(source.fingerprints, common_set, assume_unique=True))
    weigh(sources)
    a, b, shared, weight = shared_counts(sources)
    student = np.array([s.kind == "student" for s in sources], dtype=bool)
    totals = np.array([s.weights.sum() for s in sources])
    sizes = np.array([s.size for s in sources])
    keep = student[a] | student[b] if len(a) else np.zeros(0, dtype=bool)
    a, b, shared, weight = a[keep], b[keep], shared[keep], weight[keep]
    smaller = np.where(totals[a] <= totals[b], a, b)
    whole = weight / np.maximum(totals[smaller], 1e-12) * np.minimum(1.0, sizes[smaller] / MIN_FINGERPRINTS)
    pairs = []
    for x, y, count, share in zip(a.tolist(), b.tolist(), shared.tolist(), whole.tolist()):
        if not student[x]:  # the student first
            x, y = y, x
        pair = Pair(x, y, count, min(share, 1.0))
        if count >= MIN_UNIT_SHARED:
            pair.unit, pair.unit_name = best_unit(sources[x], sources[y])
        pair.flagged = pair.score >= flag
        pairs.append(pair)
    pairs.sort(key=lambda p: (-p.score, -p.shared, p.a, p.b))
    return ProjectComparison(project, sources, boilerplate, common_set, limit, pairs,
                             int(student.sum()), [code.name for code in stubs])


@dataclass
class Region:
    """A run of matched tokens in one file: [start, end) character offsets, and the other side's region it matches."""

    file: int
    start: int
    end: int
    partner: int = -1


def matched_regions(left: Tokens, right: Tokens, excluded: np.ndarray, k: int = K) -> tuple[list[Region],
                                                                                             list[Region]]:
    """The regions of each side covered by a k-gram the other side has too (stubs and common code excluded), each
    region with the other side's region that holds most of its k-grams."""
    hashes = [kgram_hashes(left, k), kgram_hashes(right, k)]
    valid = [h[h != np.uint64(2**64 - 1)] for h in hashes]
    shared = np.intersect1d(valid[0], valid[1])
    if len(excluded):
        shared = shared[~np.isin(shared, excluded, assume_unique=True)]
    sides, starts_of = [], []
    for tokens, h in zip((left, right), hashes):
        starts = np.isin(h, shared)  # a matched k-gram starts here; it covers this token and the k - 1 after it
        counted = np.r_[0, np.cumsum(np.r_[starts, np.zeros(len(tokens) - len(starts), dtype=bool)])]
        at = np.arange(len(tokens))
        covered = counted[at + 1] - counted[np.maximum(0, at - k + 1)] > 0
        region_of = np.full(len(tokens), -1)
        regions: list[Region] = []
        for t in np.flatnonzero(covered):
            if regions and covered[t - 1] and t > 0 and tokens.unit[t] == tokens.unit[t - 1]:
                regions[-1].end = int(tokens.end[t])
            else:
                regions.append(Region(int(tokens.file[t]), int(tokens.start[t]), int(tokens.end[t])))
            region_of[t] = len(regions) - 1
        sides.append((regions, region_of))
        starts_of.append(np.flatnonzero(starts))
    first_in_right = {}
    for position in starts_of[1]:
        first_in_right.setdefault(int(hashes[1][position]), int(sides[1][1][position]))
    first_in_left = {}
    for position in starts_of[0]:
        first_in_left.setdefault(int(hashes[0][position]), int(sides[0][1][position]))
    for (regions, region_of), h, starts, other in ((sides[0], hashes[0], starts_of[0], first_in_right),
                                                   (sides[1], hashes[1], starts_of[1], first_in_left)):
        votes: dict[int, dict[int, int]] = {}
        for position in starts:
            mine = int(region_of[position])
            theirs = other.get(int(h[position]), -1)
            if mine >= 0 and theirs >= 0:
                votes.setdefault(mine, {}).setdefault(theirs, 0)
                votes[mine][theirs] += 1
        for mine, tally in votes.items():
            regions[mine].partner = max(tally, key=lambda r: (tally[r], -r))
    return sides[0][0], sides[1][0]


__all__ = ["K", "W", "Source", "Pair", "ProjectComparison", "compare", "matched_regions", "COMMON_SHARE", "FLAG",
           "MIN_FINGERPRINTS", "MIN_UNIT"]
