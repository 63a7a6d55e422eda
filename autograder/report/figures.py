"""Matplotlib with no screen: every figure is drawn off-screen and embedded as PNG bytes.

Imported lazily (matplotlib costs a second to import), so the sandboxed children never pay for it.
"""

import io
import sys

import numpy as np


def figure(width: float = 6.4, height: float = 3.8):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), layout="constrained")


def series(values) -> np.ndarray:
    """``values`` as floats to plot: anything that is not a finite number (None, NaN, inf, text) becomes a gap."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        return np.array([], dtype=float)
    out = np.full(len(values), np.nan)
    for i, value in enumerate(values):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
            out[i] = value
    return out


def png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def close_unfinished() -> None:
    """Close every figure a drawing opened and did not finish: pyplot keeps each open figure, so a class graded in one
    process would hold every failed drawing's until it ended."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
