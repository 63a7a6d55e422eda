"""The regions two submissions share, for the side-by-side pages: every k-gram they have in common (the stubs' and the
class's common code left out), as runs of characters in each file, each paired with the other side's run that holds
most of its k-grams."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.similarity.fingerprints import K, kgram_hashes
from autograder.similarity.tokens import Tokens


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
