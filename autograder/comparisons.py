"""How a judge compares what a student's code returned with what it should be: every comparison goes through
``numbers``, so a value that is not finite numbers fails every one of them."""

from __future__ import annotations

import numpy as np


def numbers(value) -> np.ndarray | None:
    """``value`` as a float array, or None when it is not numbers, is ragged, or holds NaN or inf.

    Every comparison a judge makes goes through this: NaN compares false both ways, so a judge that only asks
    "is it too far?" would let NaN through. Here a number that is not finite fails every comparison.
    """
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # ragged
        return None
    if array.dtype.kind not in "biuf":  # text, None, or objects, whatever numpy would make of them
        return None
    array = array.astype(float)
    return array if np.all(np.isfinite(array)) else None


def close(got, want, tolerance: float) -> bool:
    """Same shape, finite, and every entry within ``tolerance`` (absolute below 1, relative above): how judges
    compare."""
    got, want = numbers(got), np.asarray(want, dtype=float)
    return got is not None and got.shape == want.shape and _within(got, want, tolerance)


def close_where_defined(got, want, tolerance: float) -> bool:
    """``close`` for statistics that are undefined on some inputs: ``want`` may hold NaN, and ``got`` must hold NaN
    exactly there and be close everywhere else."""
    try:
        got, want = np.asarray(got, float), np.asarray(want, float)
    except (TypeError, ValueError):  # ragged or not numbers: close to nothing
        return False
    if got.shape != want.shape or not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    defined = ~np.isnan(want)
    return _within(got[defined], want[defined], tolerance)


def _within(got: np.ndarray, want: np.ndarray, tolerance: float) -> bool:
    return bool(np.all(np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want))))


def all_close(got, want: list, tolerance: float) -> bool:
    """A list with one entry per entry of ``want``, each ``close`` to it."""
    return isinstance(got, list) and len(got) == len(want) and all(close(g, w, tolerance) for g, w in zip(got, want))


def difference(got, want) -> str:
    """The largest absolute difference, as a message says it (NaN entries, where both are undefined, left out)."""
    gaps = np.abs(np.asarray(got, float) - np.asarray(want, float))
    return f"max |difference| {np.nanmax(gaps) if np.any(~np.isnan(gaps)) else float('nan'):.3g}"


def apart(got, want, tolerance: float) -> bool:
    """Whether ``got`` differs from ``want`` by more than ``tolerance`` (absolute) anywhere, has another shape, or is
    not finite numbers."""
    array = numbers(got)
    return array is None or array.shape != np.shape(want) or bool(np.any(np.abs(array - want) > tolerance))


def beyond(value, limit: float) -> bool:
    """Whether ``value`` (a number or numbers) exceeds ``limit`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array > limit))


def below(value, floor: float) -> bool:
    """Whether ``value`` (a number or numbers) falls short of ``floor`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array < floor))
