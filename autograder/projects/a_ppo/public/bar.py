"""Project A's bar in the students' checker, without the reference: the given training loop with the student's
pieces and the course's hyperparameters on the public seeds, and the given evaluation of each final policy. Final
grading also replays every update of each run against the reference (the proof of learning); what this kit can tell
of that replay, it tells from the reference's own runs (``ppo_remade``)."""

from __future__ import annotations

import numpy as np

from ..._shared.public import ppo_remade
from ..._shared.public.ppo_config import course_config
from capstone_check.verdict import Verdict
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, evaluate, make_envs
from rlkit.nn import Adam, flatten, mlp_forward, mlp_init


def given_agent(rng, hidden: int) -> dict:
    """The given init: orthogonal actor 4 -> hidden -> hidden -> 2 (output gain 0.01), then the critic (gain 1)."""
    sizes = [OBS_DIM, hidden, hidden]
    return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01), "critic": mlp_init(sizes + [1], rng, 1.0)}


def train(student, seed: int, bar: dict, watch=None) -> tuple[list, list]:
    """The given loop (ppo.py's ``train``, with the given init and step size) with the course's hyperparameters:
    (final actor, finished episodes as (update, return)). ``watch(k, agent, optimizer, rng, segment)``, if given, is
    called before update k's rollout (``segment`` None) and after the update."""
    c = bar["hyperparameters"]
    cfg = course_config(student, c)
    gae, batch, update = student.fn("gae"), student.fn("flatten_batch"), student.fn("ppo_update")
    rng = np.random.default_rng(seed)
    agent = given_agent(rng, int(c["hidden"]))
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=c["lr"], eps=c["adam_eps"])
    rollout, episodes = Rollout(make_envs(bar["num_envs"]), seed), []
    for k in range(bar["n_updates"]):
        optimizer.lr = c["lr"] * (1 - k / bar["n_updates"])
        if watch:
            watch(k, agent, optimizer, rng, None)
        segment = rollout.collect(lambda obs: mlp_forward(agent["actor"], obs)[0],
                                  lambda obs: mlp_forward(agent["critic"], obs)[0][:, 0], bar["n_steps"], rng)
        advantages, returns = gae(segment.rewards, segment.values, segment.terminated, segment.truncated,
                                  c["gamma"], c["lam"])
        update(agent, optimizer, batch(segment, advantages, returns), cfg, rng)
        if watch:
            watch(k, agent, optimizer, rng, segment)
        episodes += [(k, float(r)) for r in segment.episode_returns]
    final = given_agent(np.random.default_rng(0), int(c["hidden"]))  # the parameters as float32, as graded
    for p, q in zip(flatten(final["actor"]) + flatten(final["critic"]), flatten(agent["actor"]) +
                    flatten(agent["critic"])):
        p[...] = np.asarray(q, dtype=np.float32).reshape(p.shape)
    return final["actor"], episodes


def bar_row(student, spec: dict, seed: int) -> list:
    """One seed's run: (the median return of the evaluation of its final policy, its training returns at the end,
    where the pieces first fail to remake the reference's run of the seed: ``ppo_remade.departure``)."""
    b = spec["bar"]
    actor, episodes = train(student, seed, b)
    tail = [ret for update, ret in episodes if update >= b["n_updates"] - b["last_updates"]]
    return [float(np.median(evaluate(actor, b["eval_episodes"], seed=10_007 * seed + 1))),
            float(np.mean(tail)) if tail else float("nan"), remaking(student, spec, seed)]


def remaking(student, spec: dict, seed: int) -> dict:
    """``ppo_remade.departure`` of the student's training pieces on the reference's run of ``seed`` (released with the
    kit; a kit without it knows nothing: "unknown")."""
    if "reference_runs" not in spec:
        return {"unknown": "this kit holds no reference runs"}
    c = spec["bar"]["hyperparameters"]
    pieces = (course_config(student, c), student.fn("gae"), student.fn("flatten_batch"), student.fn("ppo_update"))
    try:
        return ppo_remade.departure(spec, seed, given_agent(np.random.default_rng(0), int(c["hidden"])), pieces)
    except Exception as exc:  # noqa: BLE001 - pieces that trained but fail on the reference's state tell nothing sure
        return {"unknown": f"your pieces raised {type(exc).__name__} on the reference's run"}


def bar(student, spec: dict) -> Verdict:
    return bar_verdict(spec, [bar_row(student, spec, seed) for seed in spec["seeds"]])


def bar_verdict(spec: dict, rows: list) -> Verdict:
    b = spec["bar"]
    evaluated, recent = [row[0] for row in rows], [row[1] for row in rows]
    median = float(np.median(evaluated))
    figures = (f"the evaluation of your {len(evaluated)} policies ({b['eval_episodes']} episodes each): "
               f"{', '.join(f'{v:.0f}' for v in evaluated)}; median {median:.0f}. Training returns of the last "
               f"{b['last_updates']} updates: {', '.join(f'{v:.0f}' for v in recent)}")
    found = ppo_remade.remade({seed: row[2] for seed, row in zip(spec["seeds"], rows)})
    if median > b["threshold"]:
        return Verdict(1.0, figures, remade=found)
    return Verdict(0.0, f"median return should be above {b['threshold']:g}; {figures}", remade=found)
