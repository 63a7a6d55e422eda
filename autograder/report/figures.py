"""Matplotlib with no screen: every figure is drawn off-screen and embedded as PNG bytes.

Imported lazily (matplotlib costs a second to import), so the sandboxed children never pay for it.
"""

import io


def figure(width: float = 6.4, height: float = 3.8):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), layout="constrained")


def png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
