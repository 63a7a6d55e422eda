"""Whether the student's pieces remake the reference's own runs: what final grading's replay of A.bar turns on (and
of B's runs: ``b_remade``).

Final grading replays each of the student's runs update by update with the reference's pieces and credits a run only
if every update follows. This kit holds no reference pieces, but it holds a sample of the reference's own runs on the
public seeds, recorded at release: the parameters and Adam's moments before and after each sampled update, the random
numbers' state before it and every action of the run. Each sampled update is made again here with the student's
pieces from the reference's state before it. Where all of them land on the reference's, the student's runs are the
reference's, whatever a piece check says of cases training never meets; where one does not, the student's pieces
depart in what training reaches, and final grading's replay of the student's own runs departs too.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from rlkit.cartpole import Rollout, make_envs
from rlkit.nn import Adam, flatten, mlp_forward
from rlkit.runproof import load, m_gaps, parameters, v_gaps


def recorded(spec: dict, key: str) -> dict:
    """The reference's run ``key`` as released (A's: a seed; B's: a setting and a seed): its sampled updates (indices
    from 0), the state before each (parameters, then Adam's m and v, one row per update), after each, Adam's step count
    and the random numbers' state before each, and the actions of every update up to the last sampled,
    (updates, T, N)."""
    runs, bar = spec["reference_runs"], spec["bar"]
    entry = (runs.get("runs") or runs["seeds"])[key]
    with np.load(Path(spec["_dir"]) / runs["file"]) as files:
        arrays = {name: files[f"{key}.{name}"] for name in ("before", "after", "actions")}
    updates = entry.get("updates", runs.get("updates"))
    shape = (max(updates) + 1, bar["n_steps"], bar["num_envs"])
    arrays["actions"] = np.unpackbits(arrays["actions"])[:int(np.prod(shape))].reshape(shape)
    return {**arrays, **entry, "updates": updates}


def departure(spec: dict, seed: int, agent: dict, pieces: tuple) -> dict:
    """Where the student's ``pieces`` (config, gae, flatten_batch, ppo_update, as the training calls them) first fail
    to remake the reference's run of ``seed`` (``follow``). ``agent``: one of the given architecture, whose values are
    loaded from the run."""
    bar = spec["bar"]
    c, (cfg, gae, batch, update) = bar["hyperparameters"], pieces
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=c["lr"], eps=c["adam_eps"])

    def learn(segment, rng):
        advantages, returns = gae(segment.rewards, segment.values, segment.terminated, segment.truncated,
                                  c["gamma"], c["lam"])
        update(agent, optimizer, batch(segment, advantages, returns), cfg, rng)

    return follow(recorded(spec, str(seed)), bar, seed, agent, optimizer,
                  lambda k: c["lr"] * (1 - k / bar["n_updates"]), learn)


def follow(run: dict, bar: dict, seed: int, agent: dict, optimizer, step_size, learn, started=None) -> dict:
    """Where pieces first fail to make the sampled updates of the reference's ``run`` of ``seed`` again, each from the
    reference's state before it (``made_updates``): {"update": k (from 1), "what": which state, "gap": how far}; {}
    when every sampled update lands; {"unknown": why} when the run cannot be followed on this machine (an action
    sampled otherwise). With ``started``, the first update starts from the pieces' own init, which must be the
    reference's."""
    if started is not None and run["updates"][0] == 0:
        gap = weight_gap(run["before"][0][:optimizer.m.size], agent)
        if not gap <= bar["replay_tolerance"]:
            return {"update": 1, "what": "initial weights", "gap": gap}
    try:
        with contextlib.closing(made_updates(run, bar, seed, agent, optimizer, step_size, learn, started)) as made:
            for k, i in made:
                missed = missing(run["after"][i], agent, optimizer, bar)
                if missed:
                    return {"update": k + 1, **missed}
    except OtherActions as exc:
        return {"unknown": f"an action of update {exc.update} was sampled otherwise on this machine"}
    return {}


class OtherActions(Exception):
    """Update ``update`` (from 1) sampled an action other than the recorded run's."""

    def __init__(self, update: int):
        super().__init__(update)
        self.update = update


def made_updates(run: dict, bar: dict, seed: int, agent: dict, optimizer, step_size, learn, started=None):
    """Makes the sampled updates of the reference's ``run`` of ``seed`` again, each from the reference's state before
    it, stepping the environments with the recorded actions past the others; yields (k, i) once update k (from 0, the
    run's i-th sampled) is made, ``agent`` and ``optimizer`` as the pieces left them. ``step_size(k)`` is update k's
    step size; ``learn(segment, rng)`` makes the update from its segment in place, with ``optimizer`` over ``agent``'s
    arrays. ``started``: the random numbers as the pieces' own init left them, when ``agent`` and ``optimizer`` are
    that init's and the first update (sampled) starts from them, as the judge's replay of a run whose init is a
    student piece does. Raises ``OtherActions`` where an update samples an action the run did not."""
    rng, size = started or np.random.default_rng(seed), optimizer.m.size
    rollout = Rollout(make_envs(bar["num_envs"]), seed)
    try:
        for k in range(max(run["updates"]) + 1):
            if k not in run["updates"]:
                rollout.advance(run["actions"][k])
                continue
            i = run["updates"].index(k)
            if k or started is None:
                load(agent, run["before"][i][:size])
                optimizer.m[...], optimizer.v[...] = run["before"][i][size:2 * size], run["before"][i][2 * size:]
                optimizer.t = run["t"][i]
                rng.bit_generator.state = run["rng"][i]
            optimizer.lr = step_size(k)
            segment = rollout.collect(lambda obs: mlp_forward(agent["actor"], obs)[0],
                                      lambda obs: mlp_forward(agent["critic"], obs)[0][:, 0], bar["n_steps"], rng)
            if not np.array_equal(segment.actions, run["actions"][k]):
                raise OtherActions(k + 1)
            learn(segment, rng)
            yield k, i
    finally:
        rollout.envs.close()


# The reference's pieces, on another BLAS kernel than the one that recorded the runs, land within 3.1e-6 a weight
# (the replay's tolerance is 1e-5) but up to 4.1e-4 on Adam's scale at a late update, beyond the moment tolerance of
# 4e-4: final grading's judge settles such an update by taking the clip's edge terms the other way, which the student's
# pieces cannot be asked to do. Pieces that depart move the parameters by 5e-5 or more at the first update, and a
# gradient scaled by a constant, which Adam's step hides, moves m by far more than this slack allows.
MOMENT_SLACK = 10


def weight_gap(want: np.ndarray, agent) -> float:
    """The largest |want - the agent's parameters|, inf where either is not finite."""
    found = np.abs(want.astype(float) - parameters(agent))
    found[~np.isfinite(found)] = np.inf
    return float(found.max())


def missing(after: np.ndarray, agent, optimizer, bar: dict) -> dict:
    """What of the update is not where the reference's landed: the parameters farther than the replay's tolerance, or
    Adam's moments farther than ``MOMENT_SLACK`` times its moment tolerance on Adam's own scale; {} when it lands."""
    size = optimizer.m.size
    found = weight_gap(after[:size], agent)
    if not found <= bar["replay_tolerance"]:
        return {"what": "parameters", "gap": found}
    moments = np.concatenate([m_gaps(optimizer.m, after[size:2 * size], after[2 * size:], optimizer.eps),
                              v_gaps(optimizer.v, after[2 * size:], optimizer.eps)])
    if not moments.max() <= MOMENT_SLACK * bar["moment_tolerance"]:
        return {"what": "Adam's moments", "gap": float(moments.max())}
    return {}


def remade(departures: dict) -> dict | None:
    """The seeds' departures as one finding: the first seed's departure, else None when a run could not be followed,
    else {} (every sampled update of every run lands)."""
    departed = [{"seed": seed, **d} for seed, d in departures.items() if "update" in d]
    if departed:
        return departed[0]
    return None if any("unknown" in d for d in departures.values()) else {}
