"""Project D's records for a step that departs only through one piece (``capstone_check.through``): the reference's
outputs on every call of ``group_standardized_weight``, ``kl_penalized_reward`` and ``clipped_surrogate_gradient`` that
a right ``grpo_step`` makes on D.grpo_step's cases (``_shared.stand_ins``)."""

from __future__ import annotations

import inspect

import numpy as np

from autograder.projects._shared.stand_ins import recorder
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.pieces import REWARDS
from capstone_check.through import in_place_of

# the pieces grpo_step calls, in the order it calls them, and the reference's of each
ORACLE_NAMES = {"group_standardized_weight": "standardized", "kl_penalized_reward": "kl_penalized",
                "clipped_surrogate_gradient": "clipped_gradient"}
# each piece's parameters, as the students' stubs name them: the arguments a statement may name
PARAMETERS = {piece: list(inspect.signature(getattr(oracle, name)).parameters) for piece, name in ORACLE_NAMES.items()}


def recorded_calls(cases, thetas, seed: int, kwargs_of) -> dict[str, list]:
    """Per piece, [arguments, the reference's output] of each call the reference's step makes on ``cases`` (each
    with its theta, the rng ``seed + i`` and ``kwargs_of(case)``, whose weight None stands for the default)."""
    records = {piece: [] for piece in ORACLE_NAMES}
    standardized = recorder(oracle.standardized, records["group_standardized_weight"])
    with in_place_of(oracle, "kl_penalized", recorder(oracle.kl_penalized, records["kl_penalized_reward"])), \
            in_place_of(oracle, "clipped_gradient", recorder(oracle.clipped_gradient,
                                                              records["clipped_surrogate_gradient"])):
        for i, (case, theta) in enumerate(zip(cases, thetas)):
            kwargs = kwargs_of(case)
            oracle.grpo_step(theta.copy(), case[0], REWARDS[case[1]], np.random.default_rng(seed + i),
                             **{**kwargs, "weight": kwargs.get("weight") or standardized})
    return records
