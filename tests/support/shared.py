"""What the suite's two workers make once between them: a session fixture costly to make (the students' bundle, a
graded reference) is made by the first worker to ask, under a lock, in the folder both workers' temporary folders
share; the other worker waits for it and reads it. Only for what the tests read and never change."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def shared_folder(tmp_path_factory) -> Path:
    """The folder every worker of this run sees: the parent of a worker's base temporary folder under xdist, the
    base itself in a run without workers (whose parent other runs share)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make: Callable[[Path], T], read: Callable[[Path], T]) -> T:
    """``make(folder)``'s result by the first worker to ask, ``read(folder)`` for every later one: ``folder`` is
    ``name`` in the shared folder, made whole before its mark is set (a worker that failed midway leaves no mark, so
    the next one starts again on an empty folder)."""
    root = shared_folder(tmp_path_factory)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return read(folder)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
        made = make(folder)
        done.touch()
        return made
