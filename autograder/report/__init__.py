"""Reports of a graded submission: the JSON document, a terminal table, and an HTML page with the figures.

The names below are imported on first use (PEP 562): a check's child imports ``report.figures`` through a project's
plots and needs neither the terminal table (rich) nor the HTML page.
"""

from importlib import import_module
from pathlib import Path

_WHERE = {"write_html": "html", "CheckResult": "model", "ProjectResult": "model", "Report": "model",
          "print_table": "table", "score_text": "table"}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def write_json(report, path: str | Path) -> Path:
    """``report`` (a ``Report``) as its JSON document at ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.dumps(), encoding="utf-8")
    return path


__all__ = ["CheckResult", "ProjectResult", "Report", "print_table", "score_text", "write_html", "write_json"]
