"""One self-contained HTML page per submission: scores, what each check expected and measured, the figures.

It opens in a browser with no server: figures are embedded as base64 PNG and there is no script. The page is
``templates/report.html``.
"""

from __future__ import annotations

from pathlib import Path

from autograder.report.model import Report
from autograder.report.pages import render

# a check's outcome as the page's CSS class and word
SHOWN = {"passed": ("pass", "passed"), "partial": ("part", "partly"), "failed": ("fail", "failed"),
         "error": ("fail", "failed")}


def write_html(report: Report, figures: dict, path: str | Path, titles: dict[str, str]) -> Path:
    """Write the page for ``report``; ``figures`` maps project id -> [(caption, png bytes)]."""
    page = render("report.html", styles=["page.css"], report=report, figures=figures, titles=titles, shown=SHOWN)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
