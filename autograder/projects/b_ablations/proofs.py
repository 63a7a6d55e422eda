"""Project B's proof of learning: every run of the student's ablation the grader credits is one it can replay update
by update. (B.bar's runs are the grader's own: ``bar_runs``.)

A run is the kit's own loop (``_shared.proof.run``) with the student's ``details.init_agent``, ``make_optimizer``,
``learning_rate``, ``advantages_and_returns``, ``ppo.flatten_batch`` and ``details.ppo_update`` under a setting's
``Details`` and the course's hyperparameters (``student_recipe``), recorded as the parameters and Adam's moments after
every update and the actions taken, never a curve. The judge replays every update with the reference's switches
(``oracle``) for that setting (``reference_recipe``, ``_shared.replay.audit``), and the course's metric is computed
from the judge's own replayed episodes. A run whose update does not follow from the one before scores its check 0
with a sentence naming the update. B.table replays the student's own runs (``runs.npz``), so they must have been made
with the course's hyperparameters, and binds them to the folder's own pieces by a secret sample of their updates
(``student_runs``).
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Malformed, pairs
from autograder.projects._shared import audits
from autograder.projects._shared.proof import Recipe, adam, decode, transitions
from autograder.departures import Departure, departure
from autograder.projects._shared.replay import Departed, audit
from autograder.projects._shared.ppo import oracle as ppo
from autograder.projects._shared.ppo.edges import Edges, alternatives
from autograder.projects._shared.ppo.hyperparameters import course_config
from autograder.projects._shared.ppo.recording import ReplayBar, per_update_returns, recorded, unpacked
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import flipped
from autograder.projects.b_ablations.public.settings import student_details

RUNS = "runs.npz"  # the proofs of the student's own runs, written by ablation.py beside results.json


class OwnReplayBar(ReplayBar):
    """What the replay of a student's own run needs: a replay bar, and how closely the reference's replay of each
    update must land on what the folder's own pieces make of it on the grader's machine."""

    pieces_tolerance: float = Field(description="largest gap per parameter between the reference's replay of an "
                                    "update and the folder's pieces' re-make of it from the same state")
    pieces_moment_tolerance: float = Field(description="largest relative gap in Adam's v between the two")
    remade_updates: int = Field(ge=1, description="updates of each run the folder's pieces re-make: the first and "
                                "others drawn from the course secret and runs.npz")
    key: str | None = Field(None, description="the sample's key (``sample_key``), set by the grader, never course.yml")


def replay_bar(bar, key: str | None = None) -> OwnReplayBar:
    """The replay's part of B.table's bar, with its ``pieces_tolerance`` and the sample's ``key``, as the audit process
    takes it."""
    return OwnReplayBar(**{name: getattr(bar, name) for name in OwnReplayBar.model_fields if name != "key"}, key=key)


def details_of(name: str) -> dict:
    """The switches of a setting: the baseline, or one detail flipped."""
    return flipped(None if name == "baseline" else name)


def student_recipe(student, config, details, n_updates: int) -> Recipe:
    """The kit's loop with the student's pieces of details.py under ``details`` (and ppo.py's ``flatten_batch``):
    what ``details.train`` does, with the loop the grader's."""
    init, optimizer = student.fn("init_agent", "details"), student.fn("make_optimizer", "details")
    lr, advantages = student.fn("learning_rate", "details"), student.fn("advantages_and_returns", "details")
    update = student.fn("ppo_update", "details")
    return Recipe(init=lambda rng: init(rng, config, details),
                  optimizer=lambda agent: optimizer(agent, config, details),
                  lr=lambda k: lr(k, n_updates, config, details),
                  advantages=lambda segment: advantages(segment, config, details),
                  batch=student.fn("flatten_batch", "ppo"),
                  update=lambda agent, opt, batch, rng: update(agent, opt, batch, config, details, rng))


def reference_recipe(c: dict, d: dict, n_updates: int, dtype=float) -> Recipe:
    """The same loop with the reference's switches ``d`` (``oracle``), for the judge's replay; ratios on the clip's
    edge settled as in A's (``_shared.ppo.edges``); ``dtype``: the log-softmax's (``oracle.log_policy_and_ratio``)."""
    def advantages(s):
        return oracle.advantages(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"], d)

    def update(agent, optimizer, batch, rng, flips=frozenset()):  # returns the terms met on the clip's edge
        edges = Edges(flips, dtype)
        ppo.ppo_update(agent, optimizer, batch, c, rng, {key: d[key] for key in ppo.BASE_DETAILS},
                       surrogate=edges.surrogate, dtype=dtype)
        return edges.seen

    return Recipe(init=lambda rng: oracle.init_agent(rng, c["hidden"], d),
                  optimizer=lambda agent: adam(agent, c["lr"], oracle.adam_eps(c, d)),
                  lr=lambda k: oracle.learning_rate(k, n_updates, c["lr"], d), advantages=advantages,
                  batch=transitions, update=update, alternatives=alternatives)


def recorded_runs(student, names: list[str], seed: int, bar) -> dict:
    """One seed's run of each setting with the student's pieces and the course's hyperparameters, as ``replay`` replays
    them (the honest-run sweeps of ``benchmarks/b_proof_of_learning.py``)."""
    runs = {}
    for name in names:
        config = course_config(student, bar.hyperparameters)
        recipe = student_recipe(student, config, student_details(student, details_of(name)), bar.n_updates)
        runs[name] = {"seed": seed, "setting": name, **recorded(recipe, seed, bar, moments=("m", "v"))}
    return {"seed": seed, "settings": runs}


def replay(run_: dict, seed: int, bar) -> tuple[list, Departure | None]:
    """(episodes of the judge's own rollouts, None), or ([], the sentence naming the update that departed)."""
    c, snapshots, actions = unpacked(run_, seed, bar)
    name = run_.get("setting")
    if name != "baseline" and name not in oracle.DETAILS:
        raise Malformed("a run names no setting of the ablation")
    moments = decode(run_.get("moments"), (snapshots.shape[0], 2 * snapshots.shape[1]))
    if moments is None:
        raise Malformed(f"the run did not hand back the optimizer's moments after each of {bar.n_updates} updates")
    try:
        recipe = reference_recipe(c, details_of(name), bar.n_updates)
        return audit(snapshots, actions, seed, recipe, bar.replay_tolerance, moments, bar.moment_tolerance), None
    except Departed as exc:
        return [], departure(exc, bar.n_updates, bar.replay_tolerance, bar.moment_tolerance)


def seed_runs(runs, seeds, names: list[str]):
    """(seed, setting, run) of every run the children handed back, which must be one per seed and setting."""
    for seed, run in pairs(seeds, runs, "seeds"):
        if not isinstance(run, dict) or run.get("seed") != seed or not isinstance(run.get("settings"), dict) \
                or list(run["settings"]) != names:
            raise Malformed(f"the re-run of one seed does not hold the settings {names}")
        for name in names:
            run_ = run["settings"][name]
            if not isinstance(run_, dict) or run_.get("setting") != name:
                raise Malformed(f"the run of {name} is not that setting's")
            yield seed, name, run_


def start_audits(data: dict, ctx, check_id: str, replay: audits.Replay) -> None:
    """``on_shard``: audit one seed's runs now, in one process of the grader's (``_shared.audits``), with ``replay``:
    B.table's ``replay_own``."""
    for run in data.get("runs", []):
        if isinstance(run, dict) and run.get("seed") in ctx.seeds and isinstance(run.get("settings"), dict):
            audits.start_all(ctx.grading, [(r, run["seed"], replay_bar(ctx.bar, ctx.key).model_dump())
                                           for r in run["settings"].values()], replay, check_id)


def audited_scores(runs, ctx, names: list[str], replay: audits.Replay) -> tuple[dict, list[tuple[str, str]]]:
    """({setting: [the course's metric per seed]}, []) from the judge's own replayed episodes (or the ones its early
    audit kept), or (the scores so far, (the run as a message names it, its departure) of every run that departed);
    ``replay`` as for ``start_audits``."""
    bar = ctx.bar
    rbar, scores, departed = replay_bar(bar, ctx.key), {name: [] for name in names}, []
    for seed, name, run_ in list(seed_runs(runs, ctx.seeds, names)):
        episodes, failure = audits.kept_or_replayed(ctx.grading, run_, seed, rbar.model_dump(), replay)
        if failure:
            departed.append((f"the {name} run of {ctx.seed_shown(seed)}", failure))
        score = oracle.training_score(per_update_returns(episodes, bar.n_updates)) if not failure else np.nan
        scores[name].append(score)
    return scores, departed
