"""The judge's half of the proof of learning: every update of a run replayed with the reference, from the student's
own parameters before it, on the batch those parameters collect (see ``proof``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from threadpoolctl import threadpool_limits

from autograder.projects._shared.proof import Recipe, load, parameters, run
from rlkit import runproof
from rlkit.categorical import log_softmax
from rlkit.cartpole import Segment, make_envs
from rlkit.nn import mlp_forward

BOUNDARY = 1e-6  # an action is refused only when its uniform is farther than this from the CDF's step (see replayed)


class Departed(Exception):
    """Update ``update`` (from 1) did not follow from the one before: its parameters are ``gap`` away from the
    replay's at ``index`` (``what`` = "parameters"; "moments" for Adam's; "pieces" and "pieces' v" for what the
    student's pieces make of the update, ``audit``'s ``remade``), or its actions are not the ones sampled (``what``
    = "actions", ``index`` = step * num_envs + env)."""

    def __init__(self, update: int, gap: float, index: int, what: str = "parameters"):
        super().__init__(update, gap, index, what)
        self.update, self.gap, self.index, self.what = update, gap, index, what


def replayed(rollout, actions: np.ndarray, agent: dict, rng, update: int) -> Segment:
    """The segment ``Rollout.collect`` makes, from the recorded (T, N) ``actions``: the judge's own environments are
    stepped with them, logits and values come from one forward pass over the (T, N) observations (numpy's stacked
    product runs the per-step (N, .) product T times, so it is the child's bit for bit), and the T * N uniforms from
    one ``rng.random`` call (the stream is the child's T calls of N). Raises ``Departed`` unless every action is
    ``sample``'s: the first index a with u * cdf[-1] < cdf[a], u = the action's uniform; within ``BOUNDARY`` of a
    step either side is taken, which no forger can steer."""
    T, N = actions.shape
    seg = Segment(None, actions.astype(np.int64), None, None, np.zeros((T, N)), np.zeros((T, N), bool),
                  np.zeros((T, N), bool), np.zeros((T, N), bool))
    obs = []
    for t in range(T):
        obs.append(rollout.obs)
        seg.valid[t] = ~rollout.resetting
        rollout.obs, seg.rewards[t], seg.terminated[t], seg.truncated[t], _ = rollout.envs.step(seg.actions[t])
        rollout.running_return += seg.rewards[t]
        done = seg.terminated[t] | seg.truncated[t]
        seg.episode_returns += rollout.running_return[done].tolist()
        rollout.running_return[done] = 0.0
        rollout.resetting = done
    states = np.stack(obs + [rollout.obs])
    logits = mlp_forward(agent["actor"], states[:T])[0]
    seg.obs, seg.values = states[:T].astype(np.float32), mlp_forward(agent["critic"], states)[0][..., 0].astype(float)
    logp = log_softmax(logits)
    cdf = np.cumsum(np.exp(logp), axis=-1)
    u = rng.random(T * N).reshape(T, N, 1) * cdf[..., -1:]
    expected = np.minimum((u >= cdf).sum(-1), logits.shape[-1] - 1)
    near = (np.abs(u - cdf[..., :-1]) <= BOUNDARY).any(-1)
    wrong = np.flatnonzero((expected != seg.actions) & ~near)
    if wrong.size:
        raise Departed(update, 1.0, int(wrong[0]), "actions")
    seg.logp = np.take_along_axis(logp, seg.actions[..., None], axis=-1)[..., 0].astype(float)
    return seg


def stepped(rollout, actions: np.ndarray, agent, rng, update: int) -> Segment:
    """``replayed`` for an update that is not made (``remake``'s others): the environments stepped with the recorded
    actions and the rollout's random numbers drawn, nothing computed; the segment holds the actions and which were
    valid."""
    valid = rollout.advance(actions)
    rng.random(actions.size)
    return Segment(None, actions.astype(np.int64), None, None, None, None, None, valid)


def gaps(snapshot: np.ndarray, agent) -> np.ndarray:
    """|snapshot - the agent's parameters|, per parameter, inf where either is not finite."""
    out = np.abs(snapshot.astype(float) - parameters(agent))
    out[~np.isfinite(out)] = np.inf
    return out


def moment_gaps(recorded: np.ndarray, optimizer) -> np.ndarray:
    """Gaps between the student's Adam moments after an update (m then v, float32; or m alone) and the replay's, each
    on the scale that moves a step: |m - m'| / (sqrt(v') + eps), since Adam's step is lr m / (sqrt(v) + eps), and
    |v - v'| / (v' + eps^2); inf where not finite. Honest code lands within a few 1e-6 of the replay, and within
    about 1e-2 at the rare update whose 48 steps amplify rounding (a constant step size late in training:
    docs/benchmarks.md); a run made on another CPU, within about 0.2."""
    m, v = recorded[:optimizer.m.size], recorded[optimizer.m.size:]
    out = runproof.m_gaps(m, optimizer.m, optimizer.v, optimizer.eps)
    if v.size:  # m alone (a student's own run) is compared on its own
        out = np.concatenate([out, v_gaps(v, optimizer)])
    return out


def v_gaps(v: np.ndarray, optimizer) -> np.ndarray:
    """|v - v'| / (v' + eps^2) between a second moment and the replay's, inf where not finite."""
    return runproof.v_gaps(v, optimizer.v, optimizer.eps)


def audit(snapshots: np.ndarray, actions: np.ndarray, seed: int, recipe: Recipe, tolerance: float,
          moments: np.ndarray | None = None, moment_tolerance: float = 0.0) -> list:
    """The (update, return) of every episode the run finished, from the judge's own rollouts; raises ``Departed``
    at the first update whose actions were not sampled from snapshot k - 1 (the grader's init for k = 1) or whose
    replay from it is farther than ``tolerance`` from snapshot k in some parameter. ``actions`` is (updates, T, N).
    Each replay starts from the student's snapshot, so rounding does not accumulate; the audit stops at the first
    departure. One BLAS thread, as in the child, so the products round as the child's did. A replay that departs
    after meeting terms on a discontinuity is tried again with ``recipe.alternatives`` of them (``settled``).
    Without ``moments`` (A.bar), Adam's moments are the judge's own, carried from zero through the replayed updates:
    nothing but the parameters and the actions enters the replay, so a forger moves each weight by at most
    ``tolerance`` an update. With ``moments`` (updates, 2 * parameters: Adam's m then v after each update; or m
    alone, v then carried by the judge from zero), each replay also starts from the student's moments, which must
    follow within ``moment_tolerance`` on Adam's own scale (``moment_gaps``): where Adam's v is tiny its step is
    lr m / eps, and a float32 difference in m grows to 1e-3 within one update at a constant step size (B's
    ``anneal_lr`` off), so without them an honest run of B can depart. What that leaves a forger is bounded by the
    course's step size (docs/design-notes.md, "What a forger can steer")."""
    def misses(k, agent, optimizer) -> tuple[str, np.ndarray] | None:
        """What of update k's replay is not where the student's is, with its gaps; None when it lands."""
        found = gaps(snapshots[k], agent)
        if not found.max() <= tolerance:
            return "parameters", found
        if moments is not None:
            found = moment_gaps(moments[k], optimizer)
            if not found.max() <= moment_tolerance:
                return "moments", found
        return None

    def check(k, agent, optimizer):
        missed = misses(k, agent, optimizer)
        if missed:
            raise Departed(k + 1, float(missed[1].max()), int(np.argmax(missed[1])), missed[0])

    episodes = []
    replay_run(snapshots, actions, seed, recipe, moments, check, episodes,
               lambda k, agent, optimizer: misses(k, agent, optimizer) is None)
    return episodes


def remake(snapshots: np.ndarray, actions: np.ndarray, seed: int, recipe: Recipe, moments: np.ndarray,
           only: list[int], skip: Callable) -> np.ndarray:
    """The parameters and Adam's v after each update of ``only`` (indices from 0, ascending) of a recorded run,
    (len(only), 2 * parameters), as ``recipe`` makes it from the recorded parameters and Adam's moments (m then v)
    before it and the recorded actions: what the student's pieces make of a sample of the updates, in the child, for
    ``bind``. The updates between are not made: the environments are stepped with their actions and ``skip(rng,
    batch size, optimizer)`` draws what the update would have drawn and counts its steps. Rows from the first update
    of ``only`` whose recorded actions ``recipe`` would not have sampled (its random numbers drawn otherwise) on are
    NaN, which no replay lands within."""
    made = np.full((len(only), 2 * snapshots.shape[1]), np.nan, np.float32)
    row = {k: i for i, k in enumerate(only)}

    def keep(k, agent, optimizer):
        made[row[k]] = np.concatenate([parameters(agent), np.ravel(optimizer.v)])

    try:
        _sampled_run(snapshots, actions, seed, recipe, moments, only, skip, keep)
    except Departed:
        pass
    return made


def bind(snapshots: np.ndarray, actions: np.ndarray, seed: int, recipe: Recipe, moments: np.ndarray,
         remade: dict[int, np.ndarray], tolerances: tuple[float, float], skip: Callable) -> None:
    """The judge's half of ``remake``: each update of ``remade`` ({update index: the student's pieces' parameters and
    Adam's v after it}) made again by ``recipe`` from the same recorded state; raises ``Departed`` ("pieces": a gap
    per parameter beyond ``tolerances[0]``, "pieces' v": a relative gap on v beyond ``tolerances[1]``) at the first
    that does not land: the run's updates are not what the folder's pieces make. Terms on a discontinuity are
    settled towards the pieces' update, as ``audit`` settles them towards the run."""
    size = snapshots.shape[1]

    def misses(k, agent, optimizer) -> tuple[str, np.ndarray] | None:
        for what, found, most in (("pieces", gaps(remade[k][:size], agent), tolerances[0]),
                                  ("pieces' v", v_gaps(remade[k][size:], optimizer), tolerances[1])):
            if not found.max() <= most:
                return what, found
        return None

    def check(k, agent, optimizer):
        missed = misses(k, agent, optimizer)
        if missed:
            raise Departed(k + 1, float(missed[1].max()), int(np.argmax(missed[1])), missed[0])

    _sampled_run(snapshots, actions, seed, recipe, moments, sorted(remade), skip, check,
                 lambda k, agent, optimizer: misses(k, agent, optimizer) is None)


def _sampled_run(snapshots, actions, seed: int, recipe: Recipe, moments, only: list[int], skip: Callable, check,
                 lands=None) -> None:
    """``replay_run`` through the last update of ``only``, making only those (``remake``)."""
    last = max(only) + 1
    replay_run(snapshots[:last], actions, seed, recipe, moments, check, lands=lands,
               skipped=(set(range(last)) - set(only), skip))


def replay_run(snapshots, actions, seed: int, recipe: Recipe, moments, check, episodes: list | None = None,
               lands=None, skipped: tuple[set, Callable] = (set(), None)) -> None:
    """The kit's loop over a recorded run, each update k from snapshot k - 1 and, with ``moments``, Adam's moments
    after update k - 1; ``check(k, agent, optimizer)`` after each update; episodes' (update, return) added to
    ``episodes``. With ``lands(k, agent, optimizer)``, an update that does not land after terms on a discontinuity
    is taken again with ``recipe.alternatives`` of them (``settled``). ``skipped``: (updates not made, and how to
    draw in their place: ``remake``'s ``skip``)."""
    current, held = [0], []
    passed, skip = skipped

    def optimizer(agent):
        held[:] = [recipe.optimizer(agent)]
        return held[0]

    def before(k, agent):
        current[0] = k
        if k:
            load(agent, snapshots[k - 1])
            if moments is not None:
                size = held[0].m.size
                held[0].m[...] = moments[k - 1][:size]
                if moments.shape[1] > size:
                    held[0].v[...] = moments[k - 1][size:]

    def after(k, agent, segment):
        if k in passed:
            return
        if episodes is not None:
            episodes.extend((k, float(r)) for r in segment.episode_returns)
        check(k, agent, held[0])

    def settled(agent, optimizer, batch, rng):
        """``recipe.update``; if it does not land where the student's did (``lands``) after a discontinuity was met,
        the same update again from the same state with each alternative, keeping the first that lands (else the plain
        update's result, for the report). A term on the clip's edge moves the moments as well as the parameters: with
        a small Adam epsilon (B's ``large_adam_eps`` off) its trace can show in the moments alone."""
        state = parameters(agent), optimizer.m.copy(), optimizer.v.copy(), optimizer.t, rng.bit_generator.state

        def again(*flips):
            load(agent, state[0])
            optimizer.m[...], optimizer.v[...], optimizer.t, rng.bit_generator.state = state[1:]
            return recipe.update(agent, optimizer, batch, rng, *flips)

        if current[0] in passed:
            return skip(rng, len(batch["actions"]), optimizer)
        seen = recipe.update(agent, optimizer, batch, rng)
        if lands is None or lands(current[0], agent, optimizer):
            return
        for flips in recipe.alternatives(seen):
            again(flips)
            if lands(current[0], agent, optimizer):
                return
        if recipe.alternatives(seen):
            again()

    def advantages(segment):
        return (None, None) if current[0] in passed else recipe.advantages(segment)

    def batch(segment, adv, returns):
        return {"actions": segment.actions[segment.valid]} if current[0] in passed else recipe.batch(segment, adv,
                                                                                                    returns)

    envs = make_envs(actions.shape[2])
    try:
        with threadpool_limits(limits=1):
            run(envs, seed, len(snapshots), actions.shape[1],
                replace(recipe, optimizer=optimizer, update=settled, advantages=advantages, batch=batch), before,
                after, collect=lambda rollout, agent, _, rng: (stepped if current[0] in passed else replayed)(
                    rollout, actions[current[0]], agent, rng, current[0] + 1))
    finally:
        envs.close()
