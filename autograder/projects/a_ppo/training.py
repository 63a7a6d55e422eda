"""Project A's bar: the kit's training loop (the stub's given ``train``) with the student's pieces, in the child, on
budgeted environments; the judge replays every update with the reference (``_shared.replay``) and evaluates the final
policy itself, in its own process, with its own seeds. Only a run whose every update follows from the one before
earns the bar.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import gymnasium
import numpy as np

import rlkit.cartpole
from autograder.cascade import explained
from autograder.checks import Bar, Check, Malformed, Verdict, pairs
from autograder.projects._shared import audits
from autograder.projects._shared.proof import (Recipe, adam, annealed, decode, encode, init_agent, load, parameters,
                                                run, transitions)
from autograder.projects._shared.replay import Departed, audit, departure
from autograder.projects.a_ppo import oracle
from autograder.projects.a_ppo.edges import Edges, alternatives
from autograder.projects.a_ppo.update import train_probes
from autograder.student import StudentError
from rlkit.cartpole import N_ACTIONS, evaluate, make_envs


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


FIELDS = ("gamma", "lam", "clip_eps", "epochs", "minibatches", "lr", "adam_eps", "max_grad_norm", "vf_coef",
          "ent_coef", "hidden")  # the Config fields a run depends on; their values are the student's Config()'s
CAPS = {"epochs": 64, "minibatches": 512, "hidden": 256}  # bound what the judge's replay can be made to cost


def hyperparameters(student) -> tuple[object, dict]:
    """The student's ``Config()`` (the stub's defaults unless they changed them) and its values as plain numbers."""
    config_class = getattr(student.modules[0], "Config", None)
    if config_class is None:
        raise StudentError("expected a class `Config` in ppo.py (it is given in the stub)", "missing")
    config = student.fn("Config")()
    try:
        return config, {name: float(getattr(config, name)) for name in FIELDS}
    except (AttributeError, TypeError, ValueError) as exc:
        raise StudentError(f"Config() should hold the numbers {', '.join(FIELDS)}: {exc}", "invalid") from None


def checked_hyperparameters(values) -> dict:
    """The hyperparameters a child reported, refused unless they are numbers a run can have."""
    if not isinstance(values, dict) or set(values) != set(FIELDS) \
            or not all(isinstance(v, (int, float)) and np.isfinite(v) for v in values.values()):
        raise Malformed("the run did not report its Config as numbers")
    for name, cap in CAPS.items():
        if not (values[name] % 1 == 0 and 1 <= values[name] <= cap):
            raise StudentError(f"Config.{name} should be a whole number from 1 to {cap}, found {values[name]:g}",
                               "invalid")
    return {k: int(v) if k in CAPS else float(v) for k, v in values.items()}


def student_recipe(student, config, c: dict, n_updates: int) -> Recipe:
    """The kit's loop with the student's ``gae``, ``flatten_batch`` and ``ppo_update`` (the given ``train``)."""
    gae, batch, update = student.fn("gae"), student.fn("flatten_batch"), student.fn("ppo_update")
    return Recipe(init=lambda rng: init_agent(rng, int(c["hidden"])),
                  optimizer=lambda agent: adam(agent, c["lr"], c["adam_eps"]), lr=annealed(c["lr"], n_updates),
                  advantages=lambda s: gae(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"]),
                  batch=batch, update=lambda agent, optimizer, b, rng: update(agent, optimizer, b, config, rng))


def reference_recipe(c: dict, n_updates: int) -> Recipe:
    """The same loop with the reference's pieces, for the judge's replay."""
    def advantages(s):
        adv = oracle.gae(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"])
        return adv, adv + s.values[:-1]

    def update(agent, optimizer, b, rng, flips=frozenset()):  # returns the terms met on the clip's edge
        edges = Edges(flips)
        oracle.ppo_update(agent, optimizer, b, c, rng, surrogate=edges.surrogate)
        return edges.seen

    return Recipe(init=lambda rng: init_agent(rng, c["hidden"]),
                  optimizer=lambda agent: adam(agent, c["lr"], c["adam_eps"]), lr=annealed(c["lr"], n_updates),
                  advantages=advantages, batch=transitions, update=update, alternatives=alternatives)


def recorded_run(student, seed: int, bar) -> dict:
    """One graded run in the child: the kit's loop with the student's pieces on budgeted environments, the
    parameters after every update and the actions taken (the judge's replay steps its environments with them)."""
    config, values = hyperparameters(student)
    recipe = student_recipe(student, config, values, bar.n_updates)
    return {"seed": seed, "config": values,
            **recorded(recipe, seed, bar, lambda go: explained(student, "ppo_update", go, train_probes()))}


def recorded(recipe: Recipe, seed: int, bar, guard=lambda go: go(), moments: bool = False) -> dict:
    """The kit's loop with ``recipe`` on budgeted environments (no other may be made meanwhile), called through
    ``guard``: the parameters after every update (float32) and the actions taken (uint8), encoded; with ``moments``,
    also the optimizer's Adam moments after every update (m then v, float32)."""
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
                kept.append(np.concatenate([held[0].m, held[0].v]).astype(np.float32))
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
        replay_tolerance: float  # largest gap, per parameter, between a student's update and the reference's replay

    def collect(self, student, ctx):
        return {"runs": [recorded_run(student, seed, ctx.bar) for seed in ctx.seeds]}

    def on_shard(self, data, ctx):
        """Run by the grader as soon as one seed's child returns: audit its run now, in a process of its own."""
        for seed, run_ in zip(ctx.seeds, data.get("runs", [])):
            audits.start(run_, seed, ctx.bar.model_dump())

    def judge(self, data, ctx):
        bar = ctx.bar
        evaluated, curves, recent, departed = [], [], [], []
        for seed, run_ in pairs(ctx.seeds, data["runs"], "seeds"):
            episodes, actor, failure = audited(run_, seed, bar)
            if failure:
                departed.append(f"{ctx.seed_shown(seed)}: {failure}")
                evaluated.append(0.0)
            else:
                evaluated.append(float(np.median(evaluate(actor, bar.eval_episodes, seed=10_007 * seed + 1))))
            curves.append(per_update_returns(episodes, bar.n_updates))
            tail = [ret for update, ret in episodes if update >= bar.n_updates - bar.last_updates]
            recent.append(float(np.mean(tail)) if tail else float("nan"))
        median = float(np.median(evaluated))
        details = {"evaluated": evaluated, "median": median, "training_tail": recent, "curves": curves,
                   "threshold": bar.threshold}
        if departed:
            return Verdict(0.0, "no training run can be credited whose updates do not all follow from the pieces: "
                           + "; ".join(departed), details)
        figures = (f"the grader's evaluation of your three policies ({bar.eval_episodes} episodes each): "
                   f"{', '.join(f'{v:.0f}' for v in evaluated)}; median {median:.0f}. Training returns of the last "
                   f"{bar.last_updates} updates: {', '.join(f'{v:.0f}' for v in recent)}")
        if median > bar.threshold:
            return Verdict(1.0, figures, details)
        return Verdict(0.0, f"median return should be above {bar.threshold:g}; {figures}", details)


def unpacked(run_: dict, seed: int, bar) -> tuple[dict, np.ndarray, np.ndarray]:
    """(hyperparameters, snapshots (updates, parameters), actions (updates, steps, envs)) of a run, or Malformed."""
    if not isinstance(run_, dict) or run_.get("seed") != seed:
        raise Malformed("one seed's run is not that seed's")
    c = checked_hyperparameters(run_.get("config"))
    size = parameters(init_agent(np.random.default_rng(0), c["hidden"])).size
    snapshots = decode(run_.get("snapshots"), (bar.n_updates, size))
    actions = decode(run_.get("actions"), (bar.n_updates, bar.n_steps, bar.num_envs), "u1")
    if snapshots is None or actions is None or actions.max(initial=0) >= N_ACTIONS:
        raise Malformed(f"the run did not hand back {bar.n_updates} snapshots of {size} parameters and the actions "
                        f"of {bar.n_updates} x {bar.n_steps} steps of {bar.num_envs} environments")
    return c, snapshots, actions


def replay(run_: dict, seed: int, bar) -> tuple[list, str | None]:
    """(episodes of the judge's own rollouts, None), or ([], the sentence naming the update that departed)."""
    c, snapshots, actions = unpacked(run_, seed, bar)
    try:
        return audit(snapshots, actions, seed, reference_recipe(c, bar.n_updates), bar.replay_tolerance), None
    except Departed as exc:
        return [], departure(exc, bar.n_updates, bar.replay_tolerance)


def audited(run_: dict, seed: int, bar) -> tuple[list, list | None, str | None]:
    """(episodes, the final actor, None), or ([], None, the departure): the outcome the grader kept
    from its early audit of this very run (``audits``), else a replay now."""
    c, snapshots, _ = unpacked(run_, seed, bar)
    episodes, failure = audits.taken(run_, seed, bar.model_dump()) or replay(run_, seed, bar)
    if failure:
        return [], None, failure
    agent = init_agent(np.random.default_rng(0), c["hidden"])
    load(agent, snapshots[-1])
    return episodes, agent["actor"], None


def per_update_returns(episodes, n_updates: int) -> list:
    """Mean return of the episodes that finished in each update (None where none finished)."""
    sums, counts = np.zeros(n_updates), np.zeros(n_updates)
    for update, ret in episodes:
        if 0 <= update < n_updates:
            sums[int(update)] += ret
            counts[int(update)] += 1
    return [float(s / c) if c else None for s, c in zip(sums, counts)]
