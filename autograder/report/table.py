"""The score table printed after grading: one row per check, totals per project and overall."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from autograder.report.model import Report

MARKS = {"passed": "[green]pass[/]", "partial": "[yellow]part[/]", "failed": "[red]fail[/]", "error": "[red]fail[/]"}


def score_text(value: float) -> str:
    """A score as every view shows it: rounded to two decimals, without trailing zeros (5, 2.5, 0.33)."""
    return f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")


AS_ROOT = "student code ran as root: no uid of its own, no process limit"


def print_table(report: Report, console: Console | None = None, as_root: bool = False) -> None:
    """The table, titled with the submission and its seed set, and ``AS_ROOT`` when the checks' children ran as
    root (``autograder.sandbox.user.children_kept_root``)."""
    console = console or Console()
    title = f"{report.submission}  ({report.seeds} seeds)" + (f"  [{AS_ROOT}]" if as_root else "")
    table = Table(title=escape(title), title_justify="left",
                  show_lines=False, expand=False)
    table.add_column("check", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("message", overflow="fold")
    for pid, project in report.projects.items():
        for check in project.checks:
            table.add_row(escape(check.id), f"{score_text(check.score)}/{score_text(check.max_score)}",
                          MARKS[check.outcome], escape(check.message), style="dim" if check.passed else None)
        for note in project.notes:
            table.add_row("", "", "[yellow]note[/]", escape(note))
        table.add_row(f"[bold]{pid} total[/]", f"[bold]{score_text(project.score)}/{score_text(project.max_score)}[/]",
                      "", "", end_section=True)
    table.add_row("[bold]TOTAL[/]", f"[bold]{score_text(report.score)}/{score_text(report.max_score)}[/]", "", "")
    console.print(table)
