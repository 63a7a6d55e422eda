"""The code a check's child imports: a copy of the kit's runtime packages, staged once per process and reused.

The child imports the kit's packages that grading imports (``autograder``, ``capstone_check``, ``rlkit``: read from
the code by ``kit_packages``) from this copy, never from the kit's own folder, so neither sys.path, the environment,
the working directory nor ``autograder.__file__`` leads to ``solutions/`` or the private overlay.
The copy leaves out every project's ``oracle.py`` (the reference implementations the judges compare with): in the
child an oracle is a stub whose functions refuse to run, so student code cannot call or print the reference.
A check's ``collect`` therefore must not use its oracle; grading the reference in the tests would fail if one did.
The copy is compiled to bytecode once, after the stubs are written: a child may not write into it, and would otherwise
compile the kit's modules again each time it starts.

Staging costs about as much CPU as grading a cheap check, so one copy serves every grading run of a process (a class
graded by ``grade-all``, a test session). Before each reuse the copy's contents are hashed and compared with what was
staged, and the kit's own files with what they were: a copy that changed (a child that could write into it, where
the grader has neither bubblewrap nor uids of its own to give) or that the kit has moved on from is staged again.
"""

from __future__ import annotations

import atexit
import compileall
import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import autograder
from autograder.kit_packages import grading_packages

ORACLE_STUB = '''"""The reference implementations are not available to code running in the sandbox."""


def __getattr__(name):
    def unavailable(*args, **kwargs):
        raise RuntimeError("the reference implementation is not available in the sandbox")
    return unavailable
'''


def _left_out(package: Path):
    """What the copy leaves out: caches, the oracles, and an installed kit's bundled course (its solutions)."""
    def ignore(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == package
        return [n for n in names if n in ("__pycache__", "oracle.py") or (top and n == "bundled")]
    return ignore


@dataclass(frozen=True)
class _Copy:
    root: Path
    source: tuple  # the kit's files it was made from: (path, size, mtime) each
    digest: str  # its contents when staged
    owner: int  # the process that staged it (a forked child stages its own)


_held: list[_Copy] = []  # the copy in use last; earlier ones are removed at exit (a child may still be reading one)
_lock = threading.Lock()


def _source() -> tuple:
    """The kit's runtime files as they are now: what a copy staged from them must still match."""
    return tuple((str(path), stat.st_size, stat.st_mtime_ns) for package in grading_packages()
                 for path in sorted(package.rglob("*.py")) for stat in [path.stat()])


def _digest(root: Path) -> str:
    digest = hashlib.blake2b()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _stage() -> Path:
    """A new folder holding the kit's packages (``autograder/`` with its oracles stubbed), readable by any uid."""
    root = Path(tempfile.mkdtemp(prefix="autograder-runtime-"))
    for source in grading_packages():
        shutil.copytree(source, root / source.name, ignore=_left_out(source))
    for oracle in Path(autograder.__file__).parent.rglob("oracle.py"):
        stub = root / "autograder" / oracle.relative_to(Path(autograder.__file__).parent)
        stub.write_text(ORACLE_STUB)
    compileall.compile_dir(root, quiet=2)
    root.chmod(0o755)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def _remove_copies() -> None:
    for copy in _held:
        if copy.owner == os.getpid():
            shutil.rmtree(copy.root, ignore_errors=True)


atexit.register(_remove_copies)


@contextlib.contextmanager
def staged():
    """The staged runtime, a folder readable by any uid: the copy staged earlier in this process while it and the kit
    are as they were, else a new one."""
    with _lock:
        source, last = _source(), _held[-1] if _held else None
        if last is None or last.owner != os.getpid() or last.source != source or _digest(last.root) != last.digest:
            root = _stage()
            _held.append(_Copy(root, source, _digest(root), os.getpid()))
        root = _held[-1].root
    yield root
