"""How a judge compares what a student's code returned with what it should be: every comparison goes through
``numbers``, so a value that is not finite numbers fails every one of them.

``numbers``, ``close``, ``close_where_defined`` and ``difference`` are the students' checker's own
(``capstone_check.values``, which the students' bundle ships): one comparison, one wording, on both sides. NaN
compares false both ways, so a judge that only asked "is it too far?" would let NaN through; ``numbers`` refuses it.
"""

from __future__ import annotations

import numpy as np

from capstone_check.values import close, close_where_defined, difference, numbers, within_absolute

__all__ = ["all_close", "apart", "below", "beyond", "close", "close_where_defined", "difference", "numbers"]


def all_close(got, want: list, tolerance: float) -> bool:
    """A list with one entry per entry of ``want``, each ``close`` to it."""
    return isinstance(got, list) and len(got) == len(want) and all(close(g, w, tolerance) for g, w in zip(got, want))


def apart(got, want, tolerance: float) -> bool:
    """Whether ``got`` differs from ``want`` by more than ``tolerance`` (absolute) anywhere, has another shape, or is
    not finite numbers."""
    return not within_absolute(got, want, tolerance)


def beyond(value, limit: float) -> bool:
    """Whether ``value`` (a number or numbers) exceeds ``limit`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array > limit))


def below(value, floor: float) -> bool:
    """Whether ``value`` (a number or numbers) falls short of ``floor`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array < floor))
