"""The grader's run cache: runs the grader trains itself, where no student code runs, kept once per course and machine.

Such runs (C's fresh runs, B.bar's reference runs) depend only on a seed, the course secret, the course's bars and the
code that trains them, so every later grading of the same course on the same machine, in any process (a whole class,
each Gradescope submission, a Dask worker), reads them instead of training them again. Each kind has its own folder
and salt; a file's name is a keyed digest of what it depends on, so that listing the folder tells nothing of a seed or
the secret. A run is trained in a separate process, so two seeds train on two cores, and the secret reaches that
process through a pipe, never its command line or environment.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import hmac
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

import rlkit
from autograder import paths

CACHE_ENV = "AUTOGRADER_CACHE"  # the run cache's folder; default $XDG_CACHE_HOME (or ~/.cache)/rl-capstone-kit
_lock = threading.Lock()
_folders: dict[str, tuple[Path, bytes]] = {}
_made: dict[str, threading.Lock] = {}
_checked: set[str] = set()  # files this process has loaded once: not read again to see that they load


def cache_folder(kind: str) -> Path:
    """Where runs of ``kind`` are kept: ``$AUTOGRADER_CACHE/<kind>``, else under the user's cache folder, made 0700
    (the grader's alone: a check's child gets a copy of what it needs under a neutral name, never this folder). Where
    it cannot be made or written, a temporary folder for this process's life, as a last resort."""
    return _folder_and_salt(kind)[0]


def _folder_and_salt(kind: str) -> tuple[Path, bytes]:
    with _lock:
        if kind not in _folders:
            _folders[kind] = _persistent(kind) or _temporary(kind)
        return _folders[kind]


def keep_in(kind: str, folder: Path) -> None:
    """Keep runs of ``kind`` in ``folder`` for this process (a benchmark's own), with a salt of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    with _lock:
        _folders[kind] = (folder.resolve(), _kept_salt(folder))


def _persistent(kind: str) -> tuple[Path, bytes] | None:
    try:
        default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rl-capstone-kit"
        folder = Path(os.environ.get(CACHE_ENV) or default) / kind
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.chmod(0o700)
        return folder, _kept_salt(folder)
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None


def _kept_salt(folder: Path) -> bytes:
    """The folder's random salt, made once: file names are keyed with it, so that they say nothing about a seed or
    the secret even to someone who could list the folder and guess them."""
    path = folder / "salt"
    if not path.exists():
        partial = folder / f"salt.{os.getpid()}.partial"
        partial.write_bytes(os.urandom(32))
        partial.chmod(0o600)
        try:
            os.link(partial, path)  # the first process to get here wins; the others read its salt
        except FileExistsError:
            pass
        partial.unlink()
    salt = path.read_bytes()
    if len(salt) != 32:
        raise OSError("the run cache's salt is damaged")
    return salt


def _temporary(kind: str) -> tuple[Path, bytes]:
    folder = Path(tempfile.mkdtemp(prefix=f"autograder-{kind}-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder, os.urandom(32)


@functools.cache
def code_digest(*roots: Path) -> str:
    """SHA-256 of the code under ``roots`` (with the kit's shared pieces and rlkit) and numpy's version, and the BLAS
    kernel asked for: a changed kit, or another kernel, trains the runs again."""
    h = hashlib.sha256(f"{np.__version__}/{os.environ.get('OPENBLAS_CORETYPE', '')}".encode())
    for root in (*roots, paths.PACKAGE / "projects" / "_shared", Path(rlkit.__file__).parent):
        for path in sorted(root.rglob("*.py")):
            h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def kept(kind: str, depends_on: str, module: str, args: list[str], secret: str | None,
         loads: Callable[[Path], bool]) -> Path:
    """The file of ``kind`` made by ``python -m module *args PATH`` (the secret on its standard input) for what it
    ``depends_on`` (a text naming the code, the seed, the bar and the secret), made once per machine; a file that does
    not ``load`` is made again."""
    folder, salt = _folder_and_salt(kind)
    tag = hmac.new(salt, depends_on.encode(), hashlib.sha256).hexdigest()[:32]
    path = folder / f"runs_{tag}.npz"
    with _lock:
        made = _made.setdefault(f"{kind}/{tag}", threading.Lock())
    with made:
        if path.exists() and str(path) not in _checked and not loads(path):
            path.unlink(missing_ok=True)
        if not path.exists():
            env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            done = subprocess.run([sys.executable, "-m", module, *args, str(path)], input=secret or "",
                                  capture_output=True, text=True, env=env)
            if done.returncode != 0 or not path.exists():
                raise RuntimeError(f"training the runs of {module} {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        _checked.add(str(path))
    return path


def written(out: str, arrays: dict) -> None:
    """``arrays`` saved to ``out`` (an .npz) whole or not at all: two graders making the same file each write their
    own partial file, readable by the grader alone."""
    partial = Path(f"{out}.{os.getpid()}.partial.npz")
    np.savez_compressed(partial, **arrays)
    partial.chmod(0o600)
    partial.replace(out)
