"""Cascades name their cause: when a composite student function (``grpo_step``, ``ppo_update``, ``train``) fails, the
pieces it relies on are tried on their own, and the first one that misbehaves is named with what it returned.

Runs in the check's child, beside ``collect``: a piece that raises, returns NaN or returns the wrong shape on a small
probe explains why the composite raised "Probabilities contain NaN" far from the piece that made the NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar

import numpy as np

from capstone_check.student import StudentError, describe

T = TypeVar("T")


class Probe(NamedTuple):
    """A call of one piece on inputs chosen to expose it (e.g. a group of equal rewards), and the shapes it must
    return: one shape for an array, a list of shapes for a tuple of arrays."""

    piece: str
    args: tuple
    shown: str  # the arguments as a message names them
    shapes: tuple | list


def shown(value) -> str:
    """A short text of an array for a message."""
    array = np.asarray(value, dtype=float)
    if array.size > 8:
        return f"an array of shape {array.shape}"
    return np.array2string(array, precision=4, suppress_small=True, max_line_width=120)


def _copies(args: tuple) -> tuple:
    return tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)


def _fault(value, shapes) -> str | None:
    """What is wrong with ``value`` against the expected ``shapes``, or None."""
    parts, wanted = ([value], [shapes]) if isinstance(shapes, tuple) else (value, shapes)
    if not isinstance(parts, (list, tuple)) or len(parts) != len(wanted):
        return f"returned {describe(value)}, expected {len(wanted)} values"
    for part, shape in zip(parts, wanted):
        try:
            array = np.asarray(part, dtype=float)
        except (TypeError, ValueError):
            return f"returned {describe(part)}, expected numbers"
        if array.shape != tuple(shape):
            return f"returned {describe(part)}, expected shape {tuple(shape)}"
        if not np.all(np.isfinite(array)):
            return f"returned {shown(array)}, which holds NaN or inf"
    return None


def misbehaving_piece(student, probes: list[Probe]) -> str | None:
    """The first probed piece that raises, or returns non-finite numbers or the wrong shape, said in one sentence."""
    for probe in probes:
        try:
            value = student.fn(probe.piece)(*_copies(probe.args))
        except StudentError as exc:
            return str(exc) if probe.piece in str(exc) else f"`{probe.piece}`({probe.shown}): {exc}"
        fault = _fault(value, probe.shapes)
        if fault:
            return f"`{probe.piece}`({probe.shown}) {fault}"
    return None


def explained(student, composite: str, action: Callable[[], T], probes: list[Probe]) -> T:
    """``action()`` (which calls ``composite`` and validates its result); a StudentError out of it names the piece
    that misbehaves, when one of ``probes`` does."""
    try:
        return action()
    except StudentError as exc:
        if exc.kind in ("missing", "not_implemented"):  # a stub's own NotImplementedError: nothing to explain
            raise
        cause = misbehaving_piece(student, probes)
        if cause is None:
            raise
        raise StudentError(f"{exc} — the likely cause: {cause}, and `{composite}` relies on it", exc.kind,
                           exc.exception) from None
