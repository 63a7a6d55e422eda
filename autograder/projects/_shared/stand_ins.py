"""Records for a piece's stand-in (``capstone_check.through``): the reference's outputs on the calls a right composite
makes, written where the grader hands a check's child its inputs. Made for the public seeds only: on the grading seeds
they would give the composite's expected outputs away."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from autograder.projects._shared.encode import encode

_folder: Path | None = None


def recorder(fn, calls: list):
    """``fn``, appending [its arguments, its output] to ``calls`` at each call."""
    def record(*args):
        out = fn(*args)
        calls.append([[np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args], np.asarray(out)])
        return out
    return record


def records_file(records: dict) -> str:
    """``records`` (piece -> its calls) written in a folder of this process's, removed at exit; the path."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="autograder-records-"))
        atexit.register(shutil.rmtree, _folder, True)
    handle, name = tempfile.mkstemp(suffix=".json", dir=_folder)
    with open(handle, "w", encoding="utf-8") as out:
        json.dump(encode(records), out)
    return name
