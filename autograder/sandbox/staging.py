"""The child's copy of a submission: its regular files, and a sentence for everything left out.

A submission comes as it comes: it may hold fifos, sockets or device files (opening one can block the grader or
reach hardware), links that loop or lead out of the submission (following one as the grader could read what the
student may not), files the grader cannot read, huge files and folders nested without end. None of them is graded
code, so none is copied. A link to a regular file of the same submission is copied as that file (B's ``ppo.py``
pointing at ``../A_ppo/ppo.py``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_FILE_MB = 64  # far above any notebook, log or module a project needs
MAX_DEPTH = 12  # folders below the project folder
MAX_FILES = 2000
LEFT_OUT = {"__pycache__", ".ipynb_checkpoints"}  # made by Python and Jupyter, never the student's work
CHUNK = 2**20
NOT_REGULAR = "not a regular file (a fifo, socket, device or folder)"


class Skip(Exception):
    """Why one entry of the submission is not copied."""


def stage(source: Path, target: Path | None, within: Path | None = None) -> list[str]:
    """Copy the regular files of the folder ``source`` into ``target`` (only look when ``target`` is None) and say,
    one sentence each, what was left out. Links are followed only to regular files inside ``within`` (the
    submission; by default the folder holding ``source``)."""
    source = Path(source)
    if source.is_symlink():  # the project folder itself: copying through it would grade where it leads
        return [f"{source.name}: left out, a link to a folder (copy the folder itself)"]
    within = Path(within or source.resolve().parent).resolve()
    skipped, copied = [], 0
    for folder, dirs, files in os.walk(source, onerror=lambda exc: skipped.append(_unlisted(exc, source))):
        here = Path(folder).relative_to(source)
        dirs[:] = _descend(Path(folder), here, sorted(dirs), skipped)
        if target is not None:
            (target / here).mkdir(parents=True, exist_ok=True)
        for name in sorted(files):
            if copied >= MAX_FILES:
                skipped.append(f"{here / name}: left out, the submission holds more than {MAX_FILES} files")
                continue
            try:
                _copy(Path(folder, name), None if target is None else target / here / name, within)
                copied += 1
            except Skip as why:
                skipped.append(f"{here / name}: left out, {why}")
    return skipped


def _descend(folder: Path, here: Path, names: list[str], skipped: list[str]) -> list[str]:
    """The subfolders of ``folder`` to walk into: never a link, never past MAX_DEPTH."""
    keep = []
    for name in names:
        if name in LEFT_OUT:
            continue
        if (folder / name).is_symlink():
            skipped.append(f"{here / name}: left out, a link to a folder (copy the folder itself)")
        elif len(here.parts) >= MAX_DEPTH:
            skipped.append(f"{here / name}: left out, folders nested deeper than {MAX_DEPTH} levels")
        else:
            keep.append(name)
    return keep


def _unlisted(exc: OSError, source: Path) -> str:
    where = Path(exc.filename).relative_to(source) if exc.filename else "a folder"
    return f"{where}: left out, its folder could not be read ({exc.strerror})"


def _copy(path: Path, dest: Path | None, within: Path) -> None:
    """Copy the regular file at ``path`` (or what a link inside the submission leads to) to ``dest``; Skip if not."""
    if path.is_symlink():
        try:
            path = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise Skip("a link that leads nowhere or in a loop") from None
        if not path.is_relative_to(within):
            raise Skip("a link that leads out of the submission") from None
    if not stat.S_ISREG(path.lstat().st_mode):
        raise Skip(NOT_REGULAR)
    try:  # O_NONBLOCK: should it have become a fifo since, opening it must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        raise Skip(f"it could not be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Skip(NOT_REGULAR)
        if info.st_size > MAX_FILE_MB * 2**20:
            raise Skip(f"larger than {MAX_FILE_MB} MB")
        if dest is not None:
            _write(handle, dest)


def _write(handle, dest: Path) -> None:
    """At most MAX_FILE_MB bytes: a file that grows while it is copied is cut, never copied without end."""
    left = MAX_FILE_MB * 2**20
    with open(dest, "xb") as out:
        while left > 0 and (chunk := handle.read(min(CHUNK, left))):
            out.write(chunk)
            left -= len(chunk)
