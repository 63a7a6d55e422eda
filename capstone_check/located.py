"""Where a piece's output departs from the expected one, said in the inputs' own terms: the grader and the students'
checker both use it, so a failing row says the same thing in either.

Two kinds of statement, each made only when it holds on every case of the check:

- **a feature of the input** the departures line up with: the output departs *only* at entries that have it (the
  steps that end an episode by truncation, the groups of one sample, ...). Each piece names its features and hands a
  boolean mask per case; the smallest feature that holds every departure is said, with "exactly" in place of "only" when
  the departures are exactly that feature (and it has two entries or more).
- **a relation** between the output and the expected one, over the entries that depart (or all of them): a flipped
  sign, a constant factor, a constant offset, zeros, a shift by one step along the first axis, swapped axes, or NaN;
  failing all of these, one direction (every departing entry too large, or every one too small; two entries or more),
  or, where the expected values of each case sum to zero, a sum that is not zero.

A statement never carries a value (no factor, no offset, no input): it names a feature or a relation only, so it may
be said on the grading seeds too. The vocabulary, per piece, is in docs/located.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RELATIONS = {  # said after a plural subject: "your advantages are ..."
    "nan": "are NaN or infinite where numbers are expected",
    "zero": "are zero where nonzero values are expected",
    "sign": "are the expected values with their sign flipped",
    "one-minus": "are one minus the expected values (the complement of a fraction, say)",
    "factor": "are the expected values scaled by one constant factor",
    "offset": "are the expected values plus one constant",
    "factor-per-case": "are the expected values scaled by a different factor in each case",
    "offset-per-case": "are the expected values shifted by a different constant in each case",
    "later": "hold at each step the value expected one step later",
    "earlier": "hold at each step the value expected one step earlier",
    "transposed": "are the expected array with its two axes swapped",
    "above": "are too large, never too small",
    "below": "are too small, never too large",
    "nonzero-sum": "do not sum to zero in each case, unlike the expected values",
}


def _floats(value) -> np.ndarray | None:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return array


def departing(got, want, tolerance: float) -> np.ndarray | None:
    """The entries of ``got`` farther from ``want`` than ``tolerance`` (absolute below 1, relative above; a NaN or an
    infinity departs), or None when ``got`` is not numbers of ``want``'s shape."""
    got, want = _floats(got), np.asarray(want, dtype=float)
    if got is None or got.shape != want.shape:
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want))
    return ~(near | (got == want) | (np.isnan(got) & np.isnan(want)))  # NaN is right where NaN is expected


def of_kinds(kinds: Sequence[str]) -> list[dict[str, bool]]:
    """Masks for features that a whole case has or lacks (a constant group, one-hot logits): per case, each kind
    among ``kinds`` -> whether the case is of it."""
    return [{kind: kind == own for kind in dict.fromkeys(kinds)} for own in kinds]


def _near(got: np.ndarray, want: np.ndarray, tolerance: float) -> bool:
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.all(np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want))))


def _constant(got: list[np.ndarray], want: list[np.ndarray], how: str) -> float | None:
    """The one factor (``how="factor"``) or offset taking the expected entries to the student's, fitted over all."""
    g, w = np.concatenate([x.ravel() for x in got]), np.concatenate([x.ravel() for x in want])
    if g.size == 0:
        return None
    if how == "offset":
        return float(np.mean(g - w))
    scale = float(w @ w)
    return float(g @ w) / scale if scale > 0 else None


def relation(pairs: Sequence[tuple], tolerance: float) -> str | None:
    """The relation (a key of ``RELATIONS``) that takes the expected output to the student's on every case, over the
    entries that depart, or None. ``pairs``: (got, want) per case."""
    cases = [(_floats(g), np.asarray(w, dtype=float)) for g, w in pairs]
    if any(g is None for g, _ in cases):
        return None
    same = [g.shape == w.shape for g, w in cases]
    if not all(same):
        swapped = all(g.ndim == 2 and g.shape == w.T.shape for g, w in cases)
        return "transposed" if swapped and all(_near(g, w.T, tolerance) for g, w in cases) else None
    masks = [departing(g, w, tolerance) for g, w in cases]
    if not any(m.any() for m in masks):
        return None
    if all(np.all(~np.isfinite(g[m])) for (g, _), m in zip(cases, masks) if m.any()):
        return "nan"
    if any(not np.all(np.isfinite(g[m])) for (g, _), m in zip(cases, masks)):
        return None
    got, want = [g[m] for (g, _), m in zip(cases, masks)], [w[m] for (_, w), m in zip(cases, masks)]
    if _near(np.concatenate(got), np.zeros(sum(x.size for x in got)), tolerance):
        return "zero"
    if all(_near(g, -w, tolerance) for g, w in zip(got, want)):
        return "sign"
    if sum(x.size for x in got) >= 2:  # a single entry is a multiple of itself: nothing would be said
        if all(_near(g, 1 - w, tolerance) for g, w in zip(got, want)):
            return "one-minus"
        for how in ("factor", "offset"):
            c = _constant(got, want, how)
            if c is not None and all(_near(g, w * c if how == "factor" else w + c, tolerance)
                                     for g, w in zip(got, want)):
                return how
    # each case's own constant, seen at two entries or more of two cases or more (one entry fits any constant)
    departed = [(g, w) for g, w in zip(got, want) if g.size >= 2]
    if len(departed) >= 2:
        for how in ("factor", "offset"):
            constants = [_constant([g], [w], how) for g, w in departed]
            if all(c is not None and _near(g, w * c if how == "factor" else w + c, tolerance)
                   for c, (g, w) in zip(constants, departed)):
                return f"{how}-per-case"
    for shift, name in ((1, "later"), (-1, "earlier")):
        if all(g.ndim >= 1 and g.shape[0] >= 2 for g, _ in cases) and all(
                _near(g[:-1], w[1:], tolerance) if shift == 1 else _near(g[1:], w[:-1], tolerance) for g, w in cases):
            return name
    g, w = np.concatenate([x.ravel() for x in got]), np.concatenate([x.ravel() for x in want])
    if g.size >= 2 and (np.all(g > w) or np.all(g < w)):  # one entry is too large or too small: its example says so
        return "above" if np.all(g > w) else "below"
    return "nonzero-sum" if _unbalanced(cases, masks, tolerance) else None


def _unbalanced(cases: list[tuple[np.ndarray, np.ndarray]], masks: list[np.ndarray], tolerance: float) -> bool:
    """Whether every case that departs expects values summing to zero (weights around a baseline, normalized
    advantages) and the student's, two entries or more, do not."""
    departed = [(g, w) for (g, w), m in zip(cases, masks) if m.any()]
    for g, w in departed:
        scale = max(1.0, float(np.sum(np.abs(w))))
        if g.size < 2 or abs(float(np.sum(w))) > 1e-9 * scale or abs(float(np.sum(g))) <= tolerance * scale:
            return False
    return bool(departed)


def feature(pairs: Sequence[tuple], masks: Sequence[dict[str, np.ndarray]],
            tolerance: float) -> tuple[str, bool] | None:
    """The feature whose entries hold every departure on every case, the one with the fewest entries when several
    do, and whether the departures are exactly its entries; None when none does. ``masks``: per case, feature id ->
    a boolean mask of the output's entries (broadcast to its shape)."""
    departures = [departing(g, w, tolerance) for g, w in pairs]
    if any(d is None for d in departures) or not any(d.any() for d in departures):
        return None
    held = []
    for name in (masks[0] if masks else {}):
        wide = [np.broadcast_to(np.asarray(m[name], dtype=bool), d.shape) for m, d in zip(masks, departures)]
        if all(not np.any(d & ~w) for d, w in zip(departures, wide)):
            exact = all(np.array_equal(d, w) for d, w in zip(departures, wide)) and sum(map(np.sum, wide)) >= 2
            held.append((sum(int(w.sum()) for w in wide), name, exact))
    if not held:
        return None
    _, name, exact = min(held, key=lambda x: x[0])
    return name, exact


def _where(feature: str, exact: bool) -> str:
    """Where a piece goes wrong, said of a feature: ``only`` there, or ``exactly`` there (all of it, nowhere else)."""
    return f"exactly {feature}" if exact else f"only {feature}"


def located(pairs: Sequence[tuple], tolerance: float, check: str, subject: str, features: dict[str, str] | None = None,
            masks: Sequence[dict[str, np.ndarray]] | None = None) -> list[dict]:
    """What can be said of where ``subject`` (e.g. "your advantages") departs, as ``{"id", "text"}`` statements with
    ids ``<check>.<feature or relation>``: a feature of ``features`` (id -> where, e.g. "at the steps that end an
    episode by truncation") when ``masks`` line the departures up with one, and a relation. Nothing when nothing
    holds on every case."""
    said = []
    found = feature(pairs, masks, tolerance) if features and masks else None
    if found is not None:
        name, exact = found
        said.append({"id": f"{check}.{name.replace(' ', '-')}",
                     "text": f"{subject} differ {_where(features[name], exact)}"})
    kind = relation(pairs, tolerance)
    if kind is not None:
        where = "where they differ, they" if found is not None else subject
        said.append({"id": f"{check}.{kind}", "text": f"{where} {RELATIONS[kind]}"})
    return said


def raising(check: str, piece: str, features: dict[str, str], masks: Sequence[dict],
            raised: Sequence[bool]) -> list[dict]:
    """What can be said of a piece that raised on some of a check's cases only: the feature (of ``features``; per
    case, ``masks``) that holds every case it raised on, as a statement with id ``<check>.raises-<feature>``. Nothing
    when no feature does (or it raised on every case: no feature holds them all)."""
    found = feature([(float(r), 0.0) for r in raised], masks, 0.5)
    if found is None:
        return []
    name, exact = found
    return [{"id": f"{check}.raises-{name.replace(' ', '-')}",
             "text": f"your {piece} raises {_where(features[name], exact)}"}]


LEAD_IN = "Where it differs:"  # the sentence's first words, as rows and docs/located.md show them
LEAD = 200  # characters of the sentence that leads a row: the statements beyond it stay in the report's ``located``


def sentence(statements: Sequence[dict], most: int = LEAD) -> str:
    """The statements as one sentence of a message: "Where it differs: ...; ....", the first always and the next
    while the sentence stays within ``most`` characters and ``LEAD`` (a relation follows its feature, so none is left
    without it)."""
    if not statements:
        return ""
    kept = [statements[0]["text"]]
    for statement in statements[1:]:
        if len("; ".join([*kept, statement["text"]])) + len(f"{LEAD_IN} .") > min(most, LEAD):
            break
        kept.append(statement["text"])
    text = "; ".join(kept)
    return f"{LEAD_IN} {text[0].lower()}{text[1:]}."


def after_lead(lead: str, message: str) -> str:
    """``message`` after the sentence ``lead`` (none: as it is), its first letter raised to begin a sentence unless
    it begins with a name of code (``some_piece(K = 1, ...)``), which keeps its spelling."""
    if not lead:
        return message
    first = message.split(" ", 1)[0]
    return f"{lead} {message if '_' in first or '(' in first else message[:1].upper() + message[1:]}"


SHOWN_AT_MOST = 8  # numbers of one array a message may print
SMALLEST = "Smallest failing case: "  # what a row's smallest failing case, said last, begins with


def shown(value) -> str:
    """A small array (or number) as a message prints it, in nested brackets with 4 significant digits; an array of
    more than ``SHOWN_AT_MOST`` numbers is said by its shape only."""
    array = np.asarray(value)
    if array.size > SHOWN_AT_MOST:
        return f"an array of shape {array.shape}"
    if array.dtype == bool:
        array = array.astype(int)
    return str(np.vectorize(lambda x: f"{x:.4g}", otypes=[object])(array).tolist()).replace("'", "") \
        if array.ndim else f"{float(array):.4g}"


def smallest_case(rungs: Sequence[tuple[str, object, object]], tolerance: float) -> str:
    """The first of ``rungs`` (a ladder of small cases, smallest first: the call shown whole, what the student's
    piece returned, or None when it raised, and the expected value) that fails, as a sentence; "" when none does."""
    for call, got, want in rungs:
        if got is None:
            return f"{SMALLEST}{call} raised an exception."
        wrong = departing(got, want, tolerance)
        if wrong is None or wrong.any():
            return f"{SMALLEST}{call} returned {shown(got)}, expected {shown(want)}."
    return ""
