"""The expected-values file's encoding, and the comparisons a check makes (the same tolerances as final grading's).

Values are JSON with tags: ``{"__array__": ..., "dtype": ..., "shape": ...}`` for arrays, ``{"__tuple__": [...]}``,
and a few objects the checks hand to student code: a seeded generator, one of the toy's reward functions, a group
weight passed as an argument, a rollout segment.
"""

from __future__ import annotations

import numpy as np


def _centred(r):
    """A weight the checks pass to ``grpo_step`` as ``weight=`` (the README's "centred" weight)."""
    return np.subtract(r, np.mean(r))


def _leave_one_out_scaled(r):
    """A weight the checks pass to ``grpo_step`` as ``weight=`` (the README's leave-one-out weight)."""
    return np.multiply(np.size(r) / (np.size(r) - 1.0), np.subtract(r, np.mean(r)))


WEIGHTS = {"centred": _centred, "leave-one-out": _leave_one_out_scaled}


def decode(value):
    """A value of the expected-values file as the object it stands for."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return np.array(value["__array__"], dtype=value["dtype"]).reshape(value["shape"])
    if "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if "__rng__" in value:
        return np.random.default_rng(value["__rng__"])
    if "__reward__" in value:
        from rlkit import toy
        return getattr(toy, value["__reward__"])
    if "__weight__" in value:
        return WEIGHTS[value["__weight__"]]
    if "__segment__" in value:
        from rlkit.cartpole import Segment
        return Segment(**{k: decode(v) for k, v in value["__segment__"].items()})
    return {k: decode(v) for k, v in value.items()}


def numbers(value) -> np.ndarray | None:
    """``value`` as a float array, or None when it is not numbers, is ragged, or holds NaN or inf."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if array.dtype.kind not in "biuf":
        return None
    array = array.astype(float)
    return array if np.all(np.isfinite(array)) else None


def _within(got, want, tolerance) -> bool:
    return bool(np.all(np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want))))


def same(got, want, tolerance: float = 1e-6) -> bool:
    """Whether ``got`` is ``want``: the same shape, NaN exactly where ``want`` has NaN, every other entry within
    ``tolerance`` (absolute below 1, relative above). Lists and tuples compare entry by entry, text by equality."""
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    if isinstance(want, (list, tuple)) and not _is_numbers(want):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            same(g, w, tolerance) for g, w in zip(got, want))
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    if got.shape != want.shape or not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    got, want = got[~np.isnan(want)], want[~np.isnan(want)]
    with np.errstate(invalid="ignore"):  # an infinite entry matches only itself
        near = np.isfinite(want) & (np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want)))
        return bool(np.all((got == want) | near))


def _is_numbers(value) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def close(got, want, tolerance: float) -> bool:
    """Same shape, finite, every entry within ``tolerance`` (absolute below 1, relative above)."""
    got, want = numbers(got), np.asarray(want, dtype=float)
    return got is not None and got.shape == want.shape and _within(got, want, tolerance)


def close_where_defined(got, want, tolerance: float) -> bool:
    """``close`` where ``want`` is defined; NaN exactly where it is NaN."""
    try:
        got, want = np.asarray(got, float), np.asarray(want, float)
    except (TypeError, ValueError):
        return False
    if got.shape != want.shape or not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    defined = ~np.isnan(want)
    return _within(got[defined], want[defined], tolerance)


def within_absolute(got, want, tolerance: float) -> bool:
    array = numbers(got)
    return array is not None and array.shape == np.shape(want) and not bool(np.any(np.abs(array - want) > tolerance))


def exact_or_close(got, want, tolerance: float) -> bool:
    return bool(got == want or abs(got - want) <= tolerance * max(1, abs(want)))


COMPARE = {"close": close, "defined": close_where_defined, "absolute": within_absolute,
           "exact_or_close": exact_or_close}


SHORT = 4  # decimals a number of an array is printed with
PRECISE = 10  # digits where four decimals would print a number rounder than it is: a failing value is more than 1e-9
# from its expected one (the checks' tightest tolerance), which ten digits show


def _hidden(array: np.ndarray) -> bool:
    """Whether four decimals would print an entry of ``array`` as a rounder number than it is (1.0000000038 as 1.,
    1.10000983 as 1.1): the expected value beside it may be that round number."""
    with np.errstate(invalid="ignore"):
        short = np.round(array, SHORT)
        return bool(np.any((array != short) & (np.round(array, SHORT - 1) == short)))


def fmt(value) -> str:
    """A number or a small array as a message prints it; an array of more than 8 numbers by its shape alone. A number
    is printed with ten significant digits (as short as it is exact), an array with four decimals, or ten where four
    would print an entry rounder than it is; where a pair of arrays still prints alike, ``difference`` says how
    they differ."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return repr(value)[:120]
    if array.size > 8:
        return f"an array of shape {array.shape}"
    if array.ndim == 0:
        return f"{float(array):.{PRECISE}g}"
    precision = PRECISE if _hidden(array) else SHORT
    return np.array2string(array, precision=precision, suppress_small=True, max_line_width=120)


def difference(got, want) -> str:
    """How far ``got`` is from ``want``: the largest absolute difference, or in words where the two print alike."""
    try:
        got, want = np.asarray(got, float), np.asarray(want, float)
        gaps = np.abs(got - want)
    except (TypeError, ValueError):
        return "of another shape"
    largest = np.nanmax(gaps) if np.any(~np.isnan(gaps)) else float("nan")
    if got.shape == want.shape and got.size <= 8 and largest > 0 and fmt(got) == fmt(want):
        return f"equal to the digits printed, but {off_by(gaps)}"
    return f"max |difference| {largest:.3g}"


def off_by(gaps: np.ndarray) -> str:
    """Absolute differences said in words: "off by 3.8e-09 in every entry", "off by up to 2e-08 in 1 of 4 entries"."""
    gaps = np.ravel(gaps)
    off = gaps[gaps > 0]  # NaN where both are undefined is no difference
    if gaps.size == 1:
        return f"off by {off.max():.2g}"
    if off.size < gaps.size:
        return f"off by up to {off.max():.2g} in {off.size} of {gaps.size} entries"
    if off.max() <= 1.5 * off.min():
        return f"off by {off.max():.2g} in every entry"
    return f"off by {off.min():.2g} to {off.max():.2g} in every entry"
