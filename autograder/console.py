"""The console every command speaks on (standard error) and the error that means bad arguments: the two things a
command needs before any course is loaded, so a project's own command (C's ``c-logs``) takes them from here without
importing what loads a course (which imports the projects)."""

from __future__ import annotations

from rich.console import Console

err = Console(stderr=True, soft_wrap=True)


class UsageError(Exception):
    """Bad arguments or an unreadable path: exit code 2 with the message."""
