"""Whether the student's pieces remake the reference's own runs of the settings a B row grades: what final grading's
replay of B.table's and B.bar's runs turns on.

The bundle holds a sample of the reference's runs of every setting on the public seeds (the baseline over the whole
run, each other setting at its first update). Each sampled update is made again with the student's pieces of
details.py under that setting's ``Details`` and ppo.py's ``flatten_batch``, as the grader's loop calls them, from the
reference's state before it (``ppo_remade.follow``); the first update from the pieces' own init, as final grading's
replay starts it from the grader's init. A departure there is one final grading's replay meets too. Landing
on a sample is weaker evidence than its converse (most settings are sampled at one update), so only a departure is
reported.
"""

from __future__ import annotations

import numpy as np

from ..._shared.public import ppo_remade
from .settings import config_with, student_details
from capstone_check.student import StudentError
from rlkit.nn import flatten


def departure(student, spec: dict, setting: str, seed: int) -> dict:
    """``ppo_remade.follow`` of the student's pieces under ``setting`` on the reference's run of ``seed``."""
    bar = spec["bar"]
    config = config_with(student, **bar["hyperparameters"])
    details = student_details(student, spec["settings"][setting])
    fn, started = student.fn, np.random.default_rng(seed)
    agent = fn("init_agent", "details")(started, config, details)  # the first update starts from the pieces' init
    run = ppo_remade.recorded(spec, f"{setting}.{seed}")
    made, weights = sum(np.size(p) for p in flatten([agent["actor"], agent["critic"]])), run["before"].shape[1] // 3
    if made != weights:
        raise StudentError(f"init_agent makes {made} weights where the course's network has {weights}", "invalid")
    optimizer = fn("make_optimizer", "details")(agent, config, details)
    advantages, batch, update = (fn("advantages_and_returns", "details"), fn("flatten_batch", "ppo"),
                                 fn("ppo_update", "details"))

    def learn(segment, rng):
        adv, returns = advantages(segment, config, details)
        update(agent, optimizer, batch(segment, adv, returns), config, details, rng)

    return ppo_remade.follow(run, bar, seed, agent, optimizer,
                           lambda k: fn("learning_rate", "details")(k, bar["n_updates"], config, details), learn,
                           started)


def first_departure(student, spec: dict, settings: list[str]) -> dict | None:
    """The first run, of ``settings`` in order and the public seeds in order, whose sampled updates the pieces do not
    remake: {"setting", "seed", "update", "what", "gap"}; None when none departs or the pieces cannot be followed.
    Where the student's code raises, so does this (a StudentError): the row is lost as final grading loses it."""
    for setting in [name for name in settings if name in spec["settings"]]:
        for seed in spec["seeds"]:
            try:
                found = departure(student, spec, setting, seed)
            except StudentError:  # the student's code raised: it raises in final grading's runs of the setting too
                raise
            except Exception:  # noqa: BLE001 - pieces that hand back what the loop cannot use tell nothing sure
                return None
            if "update" in found:
                return {"setting": setting, "seed": seed, **found}
    return None
