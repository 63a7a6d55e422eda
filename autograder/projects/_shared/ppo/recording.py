"""Recorded PPO runs: the kit's loop on budgeted environments in the child, the parameters after every update and the
actions taken handed back, and their unpacking in the judge. Project A's bar and Project B's re-runs record alike."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import gymnasium
import numpy as np
from pydantic import Field

import rlkit.cartpole
from autograder.checks import Bar, Malformed
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from autograder.projects._shared.proof import Recipe, decode, encode, init_agent, parameters, run
from capstone_check.student import StudentError
from rlkit.cartpole import N_ACTIONS, make_envs


class ReplayBar(Bar):
    """What a recorded run and the judge's replay of it need of a bar: A.bar's, B.table's and B.bar's hold these."""

    num_envs: int = Field(description="CartPole environments run side by side")
    n_steps: int = Field(description="steps per environment and update")
    n_updates: int = Field(description="updates of each run, enforced by the environments' step budget")
    replay_tolerance: float = Field(description="largest gap per parameter between an update and its replay")
    moment_tolerance: float = Field(description="largest gap in Adam's moments after an update, on Adam's scale")
    hyperparameters: Hyperparameters = Field(default_factory=Hyperparameters,
                                             description="what every graded run trains with (the chapter's)")


class BudgetExhausted(RuntimeError):
    """Raised by the grader's environments when training asks for more steps than the course allows."""


class BudgetedEnvs(gymnasium.vector.VectorWrapper):
    """The vector env handed to ``train``: counts vector steps, refuses more than the budget, and records every
    finished episode's return with the update it finished in."""

    def __init__(self, envs, n_updates: int, n_steps: int):
        super().__init__(envs)
        self.n_steps, self.budget, self.steps = n_steps, n_updates * n_steps, 0
        self.running = np.zeros(envs.num_envs)
        self.finished: list[tuple[int, float]] = []  # (update index, episode return)

    def step(self, actions):
        if self.steps >= self.budget:
            raise BudgetExhausted(f"training asked for more than the budget of {self.budget} vector steps "
                                  f"({self.budget // self.n_steps} updates x {self.n_steps} steps)")
        obs, reward, terminated, truncated, info = self.env.step(actions)
        self.running += reward
        for i in np.flatnonzero(terminated | truncated):
            self.finished.append((self.steps // self.n_steps, float(self.running[i])))
            self.running[i] = 0.0
        self.steps += 1
        return obs, reward, terminated, truncated, info


@contextlib.contextmanager
def only_the_given_envs():
    """While ``train`` runs, making another environment is an error: every sample must come through the budget."""
    def refuse(*args, **kwargs):
        raise BudgetExhausted("train must learn only from the environments it is given, not make its own")

    saved = gymnasium.make, gymnasium.make_vec, rlkit.cartpole.make_envs
    gymnasium.make = gymnasium.make_vec = rlkit.cartpole.make_envs = refuse
    try:
        yield
    finally:
        gymnasium.make, gymnasium.make_vec, rlkit.cartpole.make_envs = saved


def student_config(student) -> dict:
    """The numbers of the student's own ``Config()`` by name (what their own runs trained with; a graded run trains
    with the course's); a field that is not a number is left out."""
    config = student.fn("Config")()
    return {name: getattr(config, name) for name in Hyperparameters.model_fields
            if isinstance(getattr(config, name, None), (int, float))}


def recorded(recipe: Recipe, seed: int, bar, guard=lambda go: go(), moments: tuple[str, ...] = ()) -> dict:
    """The kit's loop with ``recipe`` on budgeted environments (no other may be made meanwhile), called through
    ``guard``: the parameters after every update (float32) and the actions taken (uint8), encoded; with ``moments``
    (``("m",)`` or ``("m", "v")``), also those of the optimizer's Adam moments after every update (float32, in that
    order: the judge's replay starts each update from them)."""
    snapshots, actions, kept, held = [], [], [], []
    make = recipe.optimizer
    recipe = replace(recipe, optimizer=lambda agent: held.append(make(agent)) or held[-1])

    def after(k, agent, segment):
        actions.append(segment.actions)
        try:
            snapshots.append(parameters(agent))
        except (TypeError, ValueError, KeyError) as exc:
            raise StudentError(f"after update {k + 1} the agent's parameters are not arrays ({exc}); ppo_update "
                               "must update the agent's arrays in place", "invalid") from None
        if moments:
            try:
                kept.append(np.concatenate([getattr(held[0], name) for name in moments]).astype(np.float32))
            except (AttributeError, TypeError, ValueError) as exc:
                raise StudentError(f"the optimizer has no Adam moments m and v ({exc}); make_optimizer should "
                                   "return rlkit's Adam", "invalid") from None

    envs = BudgetedEnvs(make_envs(bar.num_envs), bar.n_updates, bar.n_steps)
    with only_the_given_envs():
        try:
            guard(lambda: run(envs, seed, bar.n_updates, bar.n_steps, recipe, after=after))
        except BudgetExhausted as exc:  # the loop's own rollout found the budget spent: the pieces stepped the envs
            raise StudentError(f"{exc}: your pieces stepped the environments themselves", "invalid") from None
    return {"snapshots": encode(snapshots), "actions": encode(actions, "u1"), **({"moments": encode(kept)} if moments
                                                                                 else {})}


def unpacked(run_: dict, seed: int, bar) -> tuple[dict, np.ndarray, np.ndarray]:
    """(the course's hyperparameters, snapshots (updates, parameters), actions (updates, steps, envs)) of a run, or
    Malformed."""
    if not isinstance(run_, dict) or run_.get("seed") != seed:
        raise Malformed("one seed's run is not that seed's")
    c = bar.hyperparameters.model_dump()
    size = parameters(init_agent(np.random.default_rng(0), c["hidden"])).size
    snapshots = decode(run_.get("snapshots"), (bar.n_updates, size))
    actions = decode(run_.get("actions"), (bar.n_updates, bar.n_steps, bar.num_envs), "u1")
    if snapshots is None or actions is None or actions.max(initial=0) >= N_ACTIONS:
        raise Malformed(f"the run did not hand back {bar.n_updates} snapshots of {size} parameters and the actions "
                        f"of {bar.n_updates} x {bar.n_steps} steps of {bar.num_envs} environments")
    return c, snapshots, actions


def per_update_returns(episodes, n_updates: int) -> list:
    """Mean return of the episodes that finished in each update (None where none finished)."""
    sums, counts = np.zeros(n_updates), np.zeros(n_updates)
    for update, ret in episodes:
        if 0 <= update < n_updates:
            sums[int(update)] += ret
            counts[int(update)] += 1
    return [float(s / c) if c else None for s, c in zip(sums, counts)]
