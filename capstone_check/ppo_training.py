"""Project A's bar without the reference: the given training loop with the student's pieces, on the public seeds,
and the grader's own evaluation of each final policy. Final grading also replays every update against the reference
(the proof of learning), which needs the reference and so is not done here: the message says so."""

from __future__ import annotations

import numpy as np

from capstone_check.student import StudentError
from capstone_check.verdict import Verdict
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, evaluate, make_envs
from rlkit.nn import Adam, flatten, mlp_forward, mlp_init

FIELDS = ("gamma", "lam", "clip_eps", "epochs", "minibatches", "lr", "adam_eps", "max_grad_norm", "vf_coef",
          "ent_coef", "hidden")
CAPS = {"epochs": 64, "minibatches": 512, "hidden": 256}


def given_agent(rng, hidden: int) -> dict:
    """The given init: orthogonal actor 4 -> hidden -> hidden -> 2 (output gain 0.01), then the critic (gain 1)."""
    sizes = [OBS_DIM, hidden, hidden]
    return {"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01), "critic": mlp_init(sizes + [1], rng, 1.0)}


def hyperparameters(student):
    if getattr(student.modules[0], "Config", None) is None:
        raise StudentError("expected a class `Config` in ppo.py (it is given in the stub)", "missing")
    cfg = student.fn("Config")()
    try:
        values = {name: float(getattr(cfg, name)) for name in FIELDS}
    except (AttributeError, TypeError, ValueError) as exc:
        raise StudentError(f"Config() should hold the numbers {', '.join(FIELDS)}: {exc}", "invalid") from None
    for name, cap in CAPS.items():
        if not (values[name] % 1 == 0 and 1 <= values[name] <= cap):
            raise StudentError(f"Config.{name} should be a whole number from 1 to {cap}, found {values[name]:g}",
                               "invalid")
    return cfg, values


def train(student, seed: int, bar: dict) -> tuple[list, list]:
    """The given loop (ppo.py's ``train``, with the given init and step size): (final actor, finished episodes as
    (update, return))."""
    cfg, c = hyperparameters(student)
    gae, batch, update = student.fn("gae"), student.fn("flatten_batch"), student.fn("ppo_update")
    rng = np.random.default_rng(seed)
    agent = given_agent(rng, int(c["hidden"]))
    optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=c["lr"], eps=c["adam_eps"])
    rollout, episodes = Rollout(make_envs(bar["num_envs"]), seed), []
    for k in range(bar["n_updates"]):
        optimizer.lr = c["lr"] * (1 - k / bar["n_updates"])
        segment = rollout.collect(lambda obs: mlp_forward(agent["actor"], obs)[0],
                                  lambda obs: mlp_forward(agent["critic"], obs)[0][:, 0], bar["n_steps"], rng)
        advantages, returns = gae(segment.rewards, segment.values, segment.terminated, segment.truncated,
                                  c["gamma"], c["lam"])
        update(agent, optimizer, batch(segment, advantages, returns), cfg, rng)
        episodes += [(k, float(r)) for r in segment.episode_returns]
    final = given_agent(np.random.default_rng(0), int(c["hidden"]))  # the parameters as float32, as graded
    for p, q in zip(flatten(final["actor"]) + flatten(final["critic"]), flatten(agent["actor"]) +
                    flatten(agent["critic"])):
        p[...] = np.asarray(q, dtype=np.float32).reshape(p.shape)
    return final["actor"], episodes


def bar_row(student, spec: dict, seed: int) -> list[float]:
    """One seed's run: (the median return of the evaluation of its final policy, its training returns at the end)."""
    b = spec["bar"]
    actor, episodes = train(student, seed, b)
    tail = [ret for update, ret in episodes if update >= b["n_updates"] - b["last_updates"]]
    return [float(np.median(evaluate(actor, b["eval_episodes"], seed=10_007 * seed + 1))),
            float(np.mean(tail)) if tail else float("nan")]


def bar(student, spec: dict) -> Verdict:
    return bar_verdict(spec, [bar_row(student, spec, seed) for seed in spec["seeds"]])


def bar_verdict(spec: dict, rows: list) -> Verdict:
    b = spec["bar"]
    evaluated, recent = [row[0] for row in rows], [row[1] for row in rows]
    median = float(np.median(evaluated))
    figures = (f"the evaluation of your {len(evaluated)} policies ({b['eval_episodes']} episodes each): "
               f"{', '.join(f'{v:.0f}' for v in evaluated)}; median {median:.0f}. Training returns of the last "
               f"{b['last_updates']} updates: {', '.join(f'{v:.0f}' for v in recent)}")
    if median > b["threshold"]:
        return Verdict(1.0, figures)
    return Verdict(0.0, f"median return should be above {b['threshold']:g}; {figures}")
