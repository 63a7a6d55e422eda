"""Progress bars for the long commands (grade, check, compare, grade-all, release, c-logs).

A bar shows what is running, how far along it is and how long is left, on stderr, and only where someone watches:
when stdout and stderr are terminals and no ``CI`` variable is set. In a pipe, a log file or CI, nothing is drawn,
so captured output holds the results alone.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from rich.console import Console
from rich.text import Text
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)


def wanted() -> bool:
    """True when a person is watching: stdout and stderr are terminals, and this is not a CI run."""
    return sys.stdout.isatty() and sys.stderr.isatty() and not os.environ.get("CI")


class Count(MofNCompleteColumn):
    """``3/9`` steps done, once the number of steps is known (nothing before, rather than ``0/?``)."""

    def render(self, task):
        return Text("") if task.total is None else super().render(task)


class Times(ProgressColumn):
    """``0:00:12 elapsed, 0:00:30 left``; the time left only once there is an estimate (after the first step), never
    a placeholder."""

    def __init__(self):
        super().__init__()
        self._elapsed, self._left = TimeElapsedColumn(), TimeRemainingColumn()

    def render(self, task):
        said = Text.assemble(self._elapsed.render(task), " elapsed")
        if task.time_remaining is not None and not task.finished:
            said.append_text(Text.assemble(", ", self._left.render(task), " left"))
        return said


class ProgressBar:
    """One task's bar: ``advance(what)`` marks a step done and names it, ``total(n)`` sets the number of steps."""

    def __init__(self, progress: Progress, task):
        self._progress, self._task = progress, task

    def total(self, steps: int | None) -> None:
        self._progress.update(self._task, total=steps)

    def advance(self, what: str = "", steps: int = 1) -> None:
        self._progress.update(self._task, advance=steps, description=what)

    def at(self, done: int, what: str = "") -> None:
        """``done`` steps are done, the last of them ``what``."""
        self._progress.update(self._task, completed=done, description=what)

    def restart(self, label: str) -> None:
        """Start over for a second run of the same kind (compare: the reference after the submission)."""
        self._progress.reset(self._task, description="")
        self._progress.columns[0].text_format = f"[bold]{label}[/]"

    def stop(self) -> None:
        self._progress.stop()


@contextmanager
def progress_bar(label: str, total: int | None = None, console: Console | None = None, transient: bool = True):
    """A bar labelled ``label`` (what is running) for ``total`` steps, drawn only when ``wanted()``."""
    progress = Progress(TextColumn(f"[bold]{label}[/]"), BarColumn(), Count(),
                        TextColumn("{task.description}"), Times(), console=console or Console(stderr=True),
                        transient=transient, disable=not wanted())
    with progress:
        yield ProgressBar(progress, progress.add_task("", total=total))
