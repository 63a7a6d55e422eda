"""Fresh runs for grading, made in the grader's own processes, once per course and machine.

A seed's runs are trained in a separate process (no student code in it), so two seeds train on two cores. Their logs
depend only on the seed, the course secret and the code that trains them, so they are kept in the course's run cache
(``cache_folder``) and every later grading of the same course on the same machine, in any process (a whole class,
each Gradescope submission, a Dask worker), reads them instead of training them again. The truth of each run never
leaves the grader and is never stored: it is recomputed from the seed and the course secret by ``run_plan.fresh_plan``.
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
from pathlib import Path

import numpy as np

import rlkit
from autograder import paths
from autograder.projects.c_diagnosis import run_plan

CACHE_ENV = "AUTOGRADER_CACHE"  # the run cache's folder; default $XDG_CACHE_HOME (or ~/.cache)/rl-capstone-kit
_lock = threading.Lock()
_folder: Path | None = None
_salt: bytes | None = None
_made: dict[str, threading.Lock] = {}
_checked: set[str] = set()  # bundles this process has loaded once: not read again to see that they load


def cache_folder() -> Path:
    """Where fresh runs are kept: ``$AUTOGRADER_CACHE``, else the user's cache folder, made 0700 (the grader's
    alone: a check's child gets a copy of its seed's bundle under a neutral name, never this folder). Where it
    cannot be made or written, a temporary folder for this process's life, as a last resort."""
    global _folder, _salt
    with _lock:
        if _folder is None:
            _folder, _salt = _persistent() or _temporary()
        return _folder


def _persistent() -> tuple[Path, bytes] | None:
    try:
        default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rl-capstone-kit"
        folder = Path(os.environ.get(CACHE_ENV) or default) / "c-fresh-runs"
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


def _temporary() -> tuple[Path, bytes]:
    folder = Path(tempfile.mkdtemp(prefix="autograder-c-runs-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder, os.urandom(32)


@functools.cache
def _code_digest() -> str:
    """SHA-256 of the code that trains the runs, numpy's version included: a changed kit trains them again."""
    h = hashlib.sha256(np.__version__.encode())
    for root in (Path(__file__).parent, paths.PACKAGE / "projects" / "_shared", Path(rlkit.__file__).parent):
        for path in sorted(root.rglob("*.py")):
            h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def fresh_logs(seed: int, secret: str | None = None) -> Path:
    """The .npz bundle of ``seed``'s runs in plan order (keys ``run_<i>/<field>``), trained once per course and
    machine (see ``cache_folder``); a bundle that does not load is trained again.

    The secret reaches the training process through a pipe, never its command line or environment.
    """
    folder = cache_folder()
    tag = hmac.new(_salt, f"{_code_digest()}/{seed}/{secret or ''}".encode(), hashlib.sha256).hexdigest()[:32]
    path = folder / f"runs_{tag}.npz"
    with _lock:
        made = _made.setdefault(tag, threading.Lock())
    with made:
        if path.exists() and tag not in _checked and not _loads(path):
            path.unlink(missing_ok=True)
        if not path.exists():
            env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "OPENBLAS_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            done = subprocess.run([sys.executable, "-m", "autograder.projects.c_diagnosis.fresh", str(seed), str(path)],
                                  input=secret or "", capture_output=True, text=True, env=env)
            if done.returncode != 0 or not path.exists():
                raise RuntimeError(f"training the fresh runs of seed {seed} failed:\n{done.stderr[-2000:]}")
        _checked.add(tag)
    return path


def _loads(path: Path) -> bool:
    try:
        unbundle(path)
        return True
    except Exception:  # noqa: BLE001 - a damaged file of any kind is made again
        return False


def bundle(logs: list[dict]) -> dict:
    return {f"run_{i}/{key}": value for i, log in enumerate(logs) for key, value in log.items()}


def unbundle(path) -> list[dict]:
    flat = run_plan.load(path)
    out: dict[int, dict] = {}
    for key, value in flat.items():
        run, field = key.split("/", 1)
        out.setdefault(int(run.split("_")[1]), {})[field] = value
    return [out[i] for i in sorted(out)]


def main(seed: int, out: str, secret: str) -> None:
    logs = [run_plan.generate(run) for run in run_plan.fresh_plan(seed, secret or None)]
    partial = Path(f"{out}.{os.getpid()}.partial.npz")  # two graders making the same bundle each write their own
    np.savez_compressed(partial, **bundle(logs))
    partial.chmod(0o600)
    partial.replace(out)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.stdin.read())
