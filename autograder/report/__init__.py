"""Reports of a graded submission: the JSON document, a terminal table, and an HTML page with the figures."""

import json
from pathlib import Path

from autograder.report.html import write_html
from autograder.report.table import print_table, score_text


def write_json(report: dict, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return path


__all__ = ["print_table", "score_text", "write_html", "write_json"]
