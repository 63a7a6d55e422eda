"""What lets a rerun skip the students it has graded: a fingerprint of each one's files and of the course, kept beside
their report; and ``--regrade``, which forgets the fingerprints of the students to grade again."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from autograder.classroom.rows import problems_in
from autograder.config import Course
from autograder.report import Report

FINGERPRINT = ".fingerprint"


def fingerprint(folder: Path, course: Course, seed_set: str, projects: list[str]) -> str:
    """Changes whenever a file of the student's, the course, the seed set or the graded projects change."""
    digest = hashlib.sha256(course.model_dump_json().encode() + seed_set.encode() + ",".join(projects).encode())
    files = [Path(top, name) for top, _, names in os.walk(folder) for name in names]  # walk: links not followed
    for path in sorted(p for p in files if "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_symlink():  # its target, never what it points to: that may be anything, /dev/zero included
            digest.update(b"-> " + os.readlink(path).encode())
        else:
            _digest_file(digest, path)
    return digest.hexdigest()


def _digest_file(digest, path: Path) -> None:
    """A regular file's bytes into ``digest``; a fifo, device or unreadable file only by its name (never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        digest.update(f"unreadable: {exc.strerror}".encode())
        return
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return
        while chunk := handle.read(2**20):
            digest.update(chunk)


REGRADE = {"timed-out": "timed out", "crashed": "crashed", "all": None}  # --regrade: the problem whose gradings go


def forget(out: Path, which: str) -> list[str]:
    """Make the next run regrade the students of ``out`` whose kept grading matches ``which`` (``REGRADE``'s keys:
    those whose report shows a timeout, or a crash, or all): their fingerprint goes, their report stays until the
    regrade replaces it. Returns those students."""
    forgotten = []
    for stamp in sorted(out.glob(f"*/{FINGERPRINT}")) if out.is_dir() else []:
        if _matches(stamp.parent / "report.json", REGRADE[which]):
            stamp.unlink()
            forgotten.append(stamp.parent.name)
    return forgotten


def _matches(report: Path, problem: str | None) -> bool:
    """Whether the kept report shows ``problem`` (any report, for None). A report that cannot be read shows none,
    so only ``--regrade all`` forgets it."""
    if problem is None:
        return True
    try:
        return any(found.name == problem for found in problems_in(Report.load(report)))
    except (OSError, ValueError, KeyError, TypeError):
        return False
