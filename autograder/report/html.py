"""One self-contained HTML page per submission: scores, what each check expected and measured, the figures.

It opens in a browser with no server: figures are embedded as base64 PNG and there is no script.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from autograder.report.model import CheckResult, ProjectResult, Report
from autograder.report.table import score_text

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 62rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1.5rem; }
th, td { text-align: left; padding: 0.35rem 0.6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.score { white-space: nowrap; text-align: right; }
.pass { color: #176f2c; } .part { color: #a66a00; } .fail { color: #b3261e; }
.id { font-family: ui-monospace, monospace; white-space: nowrap; }
figure { margin: 1rem 0; } figcaption, .note { color: #555; font-size: 0.9rem; }
img { max-width: 100%; height: auto; }
td { overflow-wrap: anywhere; }
td.what { width: 30%; min-width: 12rem; overflow-wrap: normal; }
code { font-family: ui-monospace, monospace; font-size: 0.92em; background: #f3f3f3; padding: 0 0.2em; }
"""

CODE = re.compile(r"`([^`\n]+)`")


def text_html(text: str) -> str:
    """Plain text as HTML: escaped, and a `name` in backticks (how messages quote code) set as code."""
    return CODE.sub(r"<code>\1</code>", html.escape(text))


# a check's outcome as the page's CSS class and word
SHOWN = {"passed": ("pass", "passed"), "partial": ("part", "partly"), "failed": ("fail", "failed"),
         "error": ("fail", "failed")}


def _shown(check: CheckResult) -> tuple[str, str]:
    """The CSS class and the word the page shows a check's outcome with."""
    return SHOWN[check.outcome]


def figure_html(caption: str, png: bytes | None) -> str:
    """An embedded figure, or its caption alone as a note when it was not drawn (``png`` None)."""
    if not png:
        return f"<p class='note'>{text_html(caption)}</p>"
    return (f"<figure><img alt='{html.escape(caption)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
            f"<figcaption>{text_html(caption)}</figcaption></figure>")


def findings_html(check: CheckResult) -> str:
    """The known mistakes recognised in a check, each named in the catalogue's sentence with its id."""
    if not check.findings:
        return ""
    items = "".join(f"<li class='finding'>{text_html(f.text)} <span class='id'>({html.escape(f.id)})</span></li>"
                    for f in check.findings)
    return f"<p class='note'>Mistake recognised:</p><ul>{items}</ul>"


def _project_section(pid: str, project: ProjectResult, title: str, figures: list[tuple[str, bytes]]) -> str:
    rows = []
    for check in project.checks:
        css, word = _shown(check)
        rows.append(f"<tr><td class='id'>{html.escape(check.id)}</td><td class='what'>{text_html(check.name)}</td>"
                    f"<td class='score {css}'>{score_text(check.score)} / {score_text(check.max_score)}<br>{word}</td>"
                    f"<td>{text_html(check.message)}{findings_html(check)}</td></tr>")
    images = "".join(figure_html(caption, png) for caption, png in figures)
    notes = "".join(f"<p class='note'>{text_html(note)}</p>" for note in project.notes)
    return (f"<h2>Project {html.escape(pid)}: {html.escape(title)} — "
            f"{score_text(project.score)} / {score_text(project.max_score)}"
            f"</h2><table><tr><th>check</th><th>what it checks</th><th>score</th><th>message</th></tr>"
            f"{''.join(rows)}</table>{notes}{images}")


def write_html(report: Report, figures: dict, path: str | Path, titles: dict[str, str]) -> Path:
    """Write the page for ``report``; ``figures`` maps project id -> [(caption, png bytes)]."""
    sections = "".join(_project_section(pid, project, titles.get(pid, ""), figures.get(pid, []))
                       for pid, project in report.projects.items())
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Autograder report</title>"
            f"<style>{STYLE}</style></head><body><h1>Autograder report</h1>"
            f"<p>Submission <code>{html.escape(report.submission)}</code>, {report.seeds} seeds. "
            f"Score <b>{score_text(report.score)} / {score_text(report.max_score)}</b>.</p>{sections}</body></html>\n")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
