"""Project D's records for a step that departs only through one piece (``capstone_check.through``): the reference's
outputs on every call of ``group_standardized_weight``, ``kl_penalized_reward`` and ``clipped_surrogate_gradient`` that
a right ``grpo_step`` makes on D.grpo_step's cases, made by the grader for the public seeds and by the release for the
students' checker."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from autograder.projects._shared.encode import encode
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.pieces import REWARDS
from capstone_check.through import in_place_of

# the pieces grpo_step calls, in the order it calls them, and the reference's of each
ORACLE_NAMES = {"group_standardized_weight": "standardized", "kl_penalized_reward": "kl_penalized",
                "clipped_surrogate_gradient": "clipped_gradient"}
_folder: Path | None = None


def _recorder(fn, calls: list):
    def record(*args):
        out = fn(*args)
        calls.append([[np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args], np.asarray(out)])
        return out
    return record


def recorded_calls(cases, thetas, seed: int, kwargs_of) -> dict[str, list]:
    """Per piece, [arguments, the reference's output] of each call the reference's step makes on ``cases`` (each
    with its theta, the rng ``seed + i`` and ``kwargs_of(case)``, whose weight None stands for the default)."""
    records = {piece: [] for piece in ORACLE_NAMES}
    standardized = _recorder(oracle.standardized, records["group_standardized_weight"])
    with in_place_of(oracle, "kl_penalized", _recorder(oracle.kl_penalized, records["kl_penalized_reward"])), \
            in_place_of(oracle, "clipped_gradient", _recorder(oracle.clipped_gradient,
                                                              records["clipped_surrogate_gradient"])):
        for i, (case, theta) in enumerate(zip(cases, thetas)):
            kwargs = kwargs_of(case)
            oracle.grpo_step(theta.copy(), case[0], REWARDS[case[1]], np.random.default_rng(seed + i),
                             **{**kwargs, "weight": kwargs.get("weight") or standardized})
    return records


def records_file(records: dict) -> str:
    """``records`` written where the grader hands a check's child its inputs (a folder of this process's, removed at
    exit); the path."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="autograder-d-records-"))
        atexit.register(shutil.rmtree, _folder, True)
    handle, name = tempfile.mkstemp(suffix=".json", dir=_folder)
    with open(handle, "w", encoding="utf-8") as out:
        json.dump(encode(records), out)
    return name
