"""Project A's bar: the student's ``train`` on environments the grader hands it, under a step budget the
environments enforce; the grader evaluates the returned policy itself, in its own process, with its own seeds.
"""

from __future__ import annotations

import contextlib

import gymnasium
import numpy as np

import rlkit.cartpole
from autograder.cascade import explained
from autograder.checks import Bar, Check, Verdict, pairs
from autograder.projects.a_ppo.update import train_probes
from autograder.student import StudentError, as_array, describe
from rlkit.cartpole import N_ACTIONS, OBS_DIM, evaluate, make_envs


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


def as_actor(agent) -> list:
    """The returned agent's actor: layers [[W, b], ...] mapping 4 observations to 2 logits, finite."""
    if not isinstance(agent, dict) or "actor" not in agent:
        raise StudentError(f"train should return (agent, log) with agent['actor'] the policy's layers; found agent "
                           f"{describe(agent)}", "invalid")
    layers, width = [], OBS_DIM
    for i, layer in enumerate(agent["actor"]):
        if not isinstance(layer, (list, tuple)) or len(layer) != 2:
            raise StudentError(f"agent['actor'][{i}]: expected [W, b], found {describe(layer)}", "invalid")
        W = np.asarray(layer[0]) if hasattr(layer[0], "shape") else np.array(layer[0], dtype=float)
        W = as_array(W, (width, W.shape[1] if W.ndim == 2 else -1), f"agent['actor'][{i}] weights")
        layers.append([W, as_array(layer[1], (W.shape[1],), f"agent['actor'][{i}] bias")])
        width = W.shape[1]
    if width != N_ACTIONS:
        raise StudentError(f"agent['actor'] should end in {N_ACTIONS} logits, ends in {width}", "invalid")
    return layers


class Bar450(Check):
    id = "A.bar"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "The chapter's bar: median return above 450 on CartPole within 60 updates, 3 seeds"
    cost, per_seed = 4.0, True

    class Bar(Bar):
        num_envs: int
        n_steps: int
        n_updates: int
        threshold: float
        eval_episodes: int
        last_updates: int

    def collect(self, student, ctx):
        bar, runs = ctx.bar, []
        for seed in ctx.seeds:
            envs = BudgetedEnvs(make_envs(bar.num_envs), bar.n_updates, bar.n_steps)
            with only_the_given_envs():
                result = explained(student, "train", lambda: student.fn("train")(envs, bar.n_updates, bar.n_steps,
                                                                                 seed), train_probes())
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise StudentError(f"train should return (agent, log), found {describe(result)}", "invalid")
            runs.append({"actor": as_actor(result[0]), "steps": envs.steps, "episodes": envs.finished})
        return {"runs": runs}

    def judge(self, data, ctx):
        bar = ctx.bar
        evaluated, curves, recent = [], [], []
        for seed, run in pairs(ctx.seeds, data["runs"], "seeds"):
            actor = [[W.astype(np.float32), b.astype(np.float32)] for W, b in as_actor({"actor": run["actor"]})]
            evaluated.append(float(np.median(evaluate(actor, bar.eval_episodes, seed=10_007 * seed + 1))))
            curve = per_update_returns(run["episodes"], bar.n_updates)
            curves.append(curve)
            tail = [ret for update, ret in run["episodes"] if update >= bar.n_updates - bar.last_updates]
            recent.append(float(np.mean(tail)) if tail else float("nan"))
        median = float(np.median(evaluated))
        details = {"evaluated": evaluated, "median": median, "training_tail": recent, "curves": curves,
                   "threshold": bar.threshold}
        figures = (f"the grader's evaluation of your three policies ({bar.eval_episodes} episodes each): "
                   f"{', '.join(f'{v:.0f}' for v in evaluated)}; median {median:.0f}. Training returns of the last "
                   f"{bar.last_updates} updates: {', '.join(f'{v:.0f}' for v in recent)}")
        if median > bar.threshold:
            return Verdict(1.0, figures, details)
        return Verdict(0.0, f"median return should be above {bar.threshold:g}; {figures}", details)


def per_update_returns(episodes, n_updates: int) -> list:
    """Mean return of the episodes that finished in each update (None where none finished)."""
    sums, counts = np.zeros(n_updates), np.zeros(n_updates)
    for update, ret in episodes:
        if 0 <= update < n_updates:
            sums[int(update)] += ret
            counts[int(update)] += 1
    return [float(s / c) if c else None for s, c in zip(sums, counts)]
