"""Reports of a graded submission: the JSON document, a terminal table, and an HTML page with the figures."""

from pathlib import Path

from autograder.report.html import write_html
from autograder.report.model import CheckResult, ProjectResult, Report
from autograder.report.table import print_table, score_text


def write_json(report: Report, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.dumps(), encoding="utf-8")
    return path


__all__ = ["CheckResult", "ProjectResult", "Report", "print_table", "score_text", "write_html", "write_json"]
