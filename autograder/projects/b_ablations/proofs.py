"""Project B's proof of learning: every run of the ablation the grader credits is one it can replay update by update.

In B.table's and B.bar's child, each (setting, seed) run is the kit's own loop (``_shared.proof.run``) with the
student's ``details.init_agent``, ``make_optimizer``, ``learning_rate``, ``advantages_and_returns``,
``ppo.flatten_batch`` and ``details.ppo_update`` under that setting's ``Details``, on budgeted environments, from the
grader's seed and the course's hyperparameters; the child hands back the parameters and Adam's moments after every
update and the actions taken, never a curve. The judge replays every update with the reference's switches
(``oracle``) for that setting and the course's hyperparameters (``_shared.replay.audit``), and the course's metric is
computed from the judge's own replayed episodes. A run whose update does not follow from the one before scores its
check 0 with a sentence naming the update, as A.bar's does. B.table replays the student's own runs (``runs.npz``)
with the course's hyperparameters, so they must have been made with them; its child also re-makes each of their
updates with the folder's own pieces (``remade_by_pieces``), and the judge's replay must land on that too, so only
runs the folder's code makes are credited.
"""

from __future__ import annotations

import base64
import binascii
import zipfile

import numpy as np
from pydantic import Field

from autograder.checks import Malformed, pairs
from autograder.projects._shared import audits
from autograder.projects._shared.proof import Recipe, adam, decode, encode, init_agent, parameters, transitions
from autograder.departures import departure
from autograder.projects._shared.replay import Departed, audit, remake
from autograder.projects._shared.ppo import oracle as ppo
from autograder.projects._shared.ppo.edges import Edges, alternatives
from autograder.projects._shared.ppo.hyperparameters import course_config, differences
from autograder.projects._shared.ppo.recording import ReplayBar, per_update_returns, recorded, student_config, unpacked
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import flipped
from autograder.projects.b_ablations.switches import student_details
from capstone_check.student import StudentError
from rlkit.cartpole import N_ACTIONS
from rlkit.runproof import load_runs, run_name, unpack

RUNS = "runs.npz"  # the proofs of the student's own runs, written by ablation.py beside results.json


class OwnReplayBar(ReplayBar):
    """What the replay of a student's own run needs: a replay bar, and how closely the reference's replay of each
    update must land on what the folder's own pieces make of it on the grader's machine."""

    pieces_tolerance: float = Field(description="largest gap per parameter between the reference's replay of an "
                                    "update and the folder's pieces' re-make of it from the same state")
    pieces_moment_tolerance: float = Field(description="largest relative gap in Adam's v between the two")


def replay_bar(bar) -> ReplayBar:
    """The replay's part of a check's bar (B.table's keeps its ``pieces_tolerance``), as the audit process takes it."""
    model = OwnReplayBar if "pieces_tolerance" in type(bar).model_fields else ReplayBar
    return model(**{name: getattr(bar, name) for name in model.model_fields})


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


def reference_recipe(c: dict, d: dict, n_updates: int) -> Recipe:
    """The same loop with the reference's switches ``d`` (``oracle``), for the judge's replay; ratios on the clip's
    edge settled as in A's (``_shared.ppo.edges``)."""
    def advantages(s):
        return oracle.advantages(s.rewards, s.values, s.terminated, s.truncated, c["gamma"], c["lam"], d)

    def update(agent, optimizer, batch, rng, flips=frozenset()):  # returns the terms met on the clip's edge
        edges = Edges(flips)
        ppo.ppo_update(agent, optimizer, batch, c, rng, {key: d[key] for key in ppo.BASE_DETAILS},
                       surrogate=edges.surrogate)
        return edges.seen

    return Recipe(init=lambda rng: oracle.init_agent(rng, c["hidden"], d),
                  optimizer=lambda agent: adam(agent, c["lr"], oracle.adam_eps(c, d)),
                  lr=lambda k: oracle.learning_rate(k, n_updates, c["lr"], d), advantages=advantages,
                  batch=transitions, update=update, alternatives=alternatives)


def recorded_runs(student, names: list[str], seed: int, bar) -> dict:
    """In the child: one seed's run of each setting with the course's hyperparameters, as the judge replays them."""
    runs = {}
    for name in names:
        config = course_config(student, bar.hyperparameters)
        recipe = student_recipe(student, config, student_details(student, details_of(name)), bar.n_updates)
        runs[name] = {"seed": seed, "setting": name, **recorded(recipe, seed, bar, moments=("m", "v"))}
    return {"seed": seed, "settings": runs}


def replay(run_: dict, seed: int, bar) -> tuple[list, str | None]:
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


def replay_plain(run_: dict, seed: int, bar: dict) -> tuple[list, str | None]:
    """``replay`` with the bar as plain data (how the audit process is handed it)."""
    return replay(run_, seed, ReplayBar.model_validate(bar))


def start_audits(data: dict, ctx, check_id: str, replay: audits.Replay) -> None:
    """``on_shard``: audit one seed's runs now, in one process of the grader's (``_shared.audits``), with ``replay``:
    the grader's re-runs (``replay_plain``) or the student's own runs (``replay_own``)."""
    for run in data.get("runs", []):
        if isinstance(run, dict) and run.get("seed") in ctx.seeds and isinstance(run.get("settings"), dict):
            audits.start_all(ctx.grading, [(r, run["seed"], replay_bar(ctx.bar).model_dump())
                                           for r in run["settings"].values()], replay, check_id)


def audited_scores(runs, ctx, names: list[str], replay: audits.Replay) -> tuple[dict, list[tuple[str, str]]]:
    """({setting: [the course's metric per seed]}, []) from the judge's own replayed episodes (or the ones its early
    audit kept), or (the scores so far, (the run as a message names it, its departure) of every run that departed);
    ``replay`` as for ``start_audits``."""
    bar = ctx.bar
    rbar, scores, departed = replay_bar(bar), {name: [] for name in names}, []
    for seed, name, run_ in list(seed_runs(runs, ctx.seeds, names)):
        episodes, failure = audits.kept_or_replayed(ctx.grading, run_, seed, rbar.model_dump(), replay)
        if failure:
            departed.append((f"the {name} run of {ctx.seed_shown(seed)}", failure))
        score = oracle.training_score(per_update_returns(episodes, bar.n_updates)) if not failure else np.nan
        scores[name].append(score)
    return scores, departed


# ------------------------------------------------------------------------------------------------ the student's runs


def own_runs(student, names: list[str], seed: int, bar) -> dict:
    """In B.table's child: the proofs of the student's own runs of ``names`` on ``seed`` (from ``runs.npz``, as the
    harness wrote them on the student's machine), as text; refused unless ``Config()``, which they trained with, holds
    the course's hyperparameters (the judge replays them with the course's)."""
    changed = differences(student_config(student), bar.hyperparameters)
    if changed:
        raise StudentError(f"the grader replays your runs with the course's hyperparameters, and your Config() differs:"
                           f" {'; '.join(changed)}. Set Config back to the course's values and run `python "
                           "ablation.py` again", "invalid")
    path = student.folder / RUNS
    if not path.is_file():
        raise StudentError(f"expected {RUNS} beside ablation.py: `python ablation.py` writes it with results.json, "
                           "and the grader replays your runs from it", "missing")
    try:
        runs = load_runs(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise StudentError(f"{RUNS} cannot be read ({exc}); run `python ablation.py` again", "invalid") from None
    missing = [name for name in names if run_name(name, seed) not in runs]
    if missing:
        raise StudentError(f"{RUNS} holds no run of {', '.join(missing)} on seed {seed}; run `python ablation.py` "
                           "again so that it holds every run of your table", "missing")
    return {"seed": seed, "settings": {
        name: {"seed": seed, "setting": name, "proof": base64.b64encode(runs[run_name(name, seed)]).decode("ascii"),
               **remade_by_pieces(student, name, seed, runs[run_name(name, seed)], bar)}
        for name in names}}


def remade_by_pieces(student, name: str, seed: int, proof: bytes, bar) -> dict:
    """In B.table's child: what the folder's own pieces make of each update of one recorded run, each from the state
    the judge's replay starts it from (``replay.remake``), as {"remade": text}; nothing for a proof the judge will
    refuse as malformed anyway. The judge requires its replay of each update to land on this too, so runs made by
    other pieces (a classmate's) earn nothing whatever the folder's pieces are."""
    try:
        _, snapshots, moments, actions = own_proof(proof, seed, name, bar)
    except Malformed:
        return {}
    config = course_config(student, bar.hyperparameters)
    recipe = student_recipe(student, config, student_details(student, details_of(name)), bar.n_updates)
    return {"remade": encode(remake(snapshots, actions, seed, recipe, moments))}


def unpacked_own(run_: dict, seed: int, bar) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """(the course's hyperparameters, snapshots, Adam's first moments, actions) of one of the student's own runs, or
    Malformed."""
    if not isinstance(run_, dict) or run_.get("seed") != seed:
        raise Malformed("one seed's run is not that seed's")
    try:
        proof = base64.b64decode(str(run_.get("proof")), validate=True)
    except (ValueError, binascii.Error) as exc:
        raise Malformed(f"the proof of a run in {RUNS} cannot be read: {exc}") from None
    return own_proof(proof, seed, run_.get("setting"), bar)


def own_proof(proof: bytes, seed: int, setting, bar) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """``unpacked_own`` of a proof's bytes, as ``runs.npz`` holds them."""
    c = bar.hyperparameters.model_dump()
    try:
        header, snapshots, moments, actions = unpack(proof)
    except ValueError as exc:
        raise Malformed(f"the proof of a run in {RUNS} cannot be read: {exc}") from None
    size = parameters(init_agent(np.random.default_rng(0), c["hidden"])).size
    wanted = {"seed": seed, "setting": setting, "updates": bar.n_updates, "parameters": size,
              "steps": bar.n_steps, "envs": bar.num_envs}
    wrong = [key for key, value in wanted.items() if header.get(key) != value]
    if wrong or actions.max(initial=0) >= N_ACTIONS:
        raise Malformed(f"a run in {RUNS} is not the one the table needs (its {', '.join(wrong) or 'actions'}): "
                        f"expected {bar.n_updates} updates of {bar.num_envs} x {bar.n_steps} steps with {size} "
                        "parameters")
    return c, snapshots, moments, actions


def replay_own(run_: dict, seed: int, bar: dict) -> tuple[list, str | None]:
    """``replay`` for one of the student's own runs: the judge's episodes, or the sentence naming the departure.
    Each update starts from the student's parameters and Adam's first moment, and from the second moment the folder's
    pieces carried to it in the child (``remade_by_pieces``); it must land on the recorded run and on what the pieces
    made of it."""
    bar = OwnReplayBar.model_validate(bar)
    c, snapshots, moments, actions = unpacked_own(run_, seed, bar)
    name = run_.get("setting")
    if name != "baseline" and name not in oracle.DETAILS:
        raise Malformed("a run names no setting of the ablation")
    remade = decode(run_.get("remade"), (snapshots.shape[0], 2 * snapshots.shape[1]))
    if remade is None:
        raise Malformed(f"the re-run did not hand back what your pieces make of each update of {name}'s run")
    # update k starts from the recorded m and the v the pieces carried through update k - 1 (the first from zero)
    moments = np.concatenate([moments, remade[:, snapshots.shape[1]:]], axis=1)
    try:
        recipe = reference_recipe(c, details_of(name), bar.n_updates)
        return audit(snapshots, actions, seed, recipe, bar.replay_tolerance, moments, bar.moment_tolerance, remade,
                     (bar.pieces_tolerance, bar.pieces_moment_tolerance)), None
    except Departed as exc:
        if exc.what.startswith("pieces"):
            return [], pieces_departure(exc, bar)
        return [], departure(exc, bar.n_updates, bar.replay_tolerance, bar.moment_tolerance)


def pieces_departure(exc: Departed, bar) -> str:
    """The clause of a run in runs.npz whose update the folder's own pieces do not make as the reference does."""
    gap = (f"parameters {exc.gap:.3g} away from" if exc.what == "pieces" else
           f"Adam's second moment {exc.gap:.3g} (relative) away from")
    most = bar.pieces_tolerance if exc.what == "pieces" else bar.pieces_moment_tolerance
    return (f"at update {exc.update} of {bar.n_updates}, your details.py and ppo.py, run by the grader from your "
            f"recorded run, made {gap} the reference's update (tolerance {most:g})")
