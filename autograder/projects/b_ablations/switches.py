"""Project B's checks of the switches: the defaults are Project A, and each switch, flipped on fixed inputs, changes
exactly what the reference's does and nothing else."""

from __future__ import annotations


import numpy as np
from pydantic import Field

from autograder.checks import Bar, ToleranceBar
from autograder.projects._shared.encode import encode, mistakes_by_part
from autograder.projects._shared.once import WrittenOnce
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from autograder.projects.b_ablations.public.settings import collect_defaults, judge_defaults
from autograder.projects.b_ablations.public.switches import collect_switches, judge_switches

from autograder.projects._shared.ppo.cases import gae_cases, update_case, with_a_flat_minibatch
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import DETAILS, WHERE, flipped
from autograder.projects.b_ablations.mistakes import MISTAKES
from autograder.projects.b_ablations.rounding import rounded_inside_the_clip
from autograder.projects.b_ablations.public.settings import (STATISTICS, kind_of)
from rlkit.cartpole import Segment
from rlkit.nn import Adam, flatten

# every value the switches read from the config is off Config's default, so a function that hard-codes a default
# instead of reading the config changes its output on every seed (tests/test_precision.py); clip_eps and adam_eps
# are drawn by the seed, and each draw separates (docs/check-coverage.md)
SWITCH_UPDATE_CONFIG = {"epochs": 2, "minibatches": 4, "clip_eps": 0.2, "vf_coef": 0.7, "ent_coef": 0.005,
                 "max_grad_norm": 0.05}  # small enough that the clipping binds on the fixed batch
SWITCH_OPTIMIZER_CONFIG = {"lr": 3e-3, "adam_eps": 1e-5}
UPDATE_OPTIMIZER_CONFIG = {"lr": 0.03, "adam_eps": 1e-5}  # large enough that ratios leave every drawn clip range
CLIP_EPS, ADAM_EPS = (0.1, 0.15, 0.3), (1e-6, 1e-4, 1e-3)
# B.defaults' two runs train with every value of Config off its default: "the defaults are Project A" holds for any
# config, and a details.py that hard-codes one where ppo.py reads it parts from ppo.train
DEFAULTS_CONFIG = {"gamma": 0.98, "lam": 0.9, "clip_eps": 0.1, "epochs": 4, "minibatches": 4, "lr": 1e-2,
                   "adam_eps": 1e-4, "max_grad_norm": 0.3, "vf_coef": 0.7, "ent_coef": 0.005, "hidden": 16}
HIDDEN, N_UPDATES, GAMMA, LAM = 16, 7, 0.9, 0.8


def settings():
    """(label, details): the baseline, then each detail flipped."""
    yield "baseline", flipped(None)
    for name in DETAILS:
        yield name, flipped(name)


# ------------------------------------------------------------------------------------------------ fixed inputs


def update_config(seed: int) -> dict:
    """ppo_update's config for ``seed``: the clip half-width (of the ratio and of the value loss) off its default."""
    return {**SWITCH_UPDATE_CONFIG, "clip_eps": float(np.random.default_rng([seed, 23]).choice(CLIP_EPS))}


def optimizer_config(seed: int) -> dict:
    """make_optimizer's config for ``seed``: Adam's large epsilon off its default."""
    return {**SWITCH_OPTIMIZER_CONFIG, "adam_eps": float(np.random.default_rng([seed, 24]).choice(ADAM_EPS))}


def adam_gradients(seed: int, agent) -> list:
    """Three steps' gradients whose scales run from 1e-8 to 1, so Adam's epsilon visibly matters."""
    rng = np.random.default_rng(seed)
    params = flatten([agent["actor"], agent["critic"]])
    return [[rng.normal(size=p.shape) * 10.0 ** rng.integers(-8, 1, size=p.shape) for p in params] for _ in range(3)]


def truncation_segment(seed: int) -> Segment:
    """A segment whose episodes end both ways, marked as a real rollout marks it: the step after an episode ends is
    a reset step (``valid`` False), which never enters a batch."""
    T, N, _, _, rewards, values, terminated, truncated = list(gae_cases(seed))[4]
    zeros = np.zeros((T, N))
    valid = np.ones((T, N), bool)
    valid[1:] = ~(terminated | truncated)[:-1]
    return Segment(np.zeros((T, N, 4), np.float32), zeros.astype(np.int64), zeros, values, rewards, terminated,
                   truncated, valid)


def on_valid_steps(advantages_and_returns, segment: Segment) -> list:
    """Advantages and returns where the rollout marks the step valid: what a batch holds. A reset step's entries are
    never trained on, so two computations that differ only there (zeroing V after a time-out, say) are equal."""
    return [np.asarray(a)[segment.valid] for a in advantages_and_returns]


def update_inputs(seed: int):
    """Project A's fixed float64 batch, with the rollout's V_old moved off the critic so value clipping binds, rows
    where it does not bind but rounding makes the clipped branch the larger (``rounding``), and a first minibatch of
    nearly equal advantages (``with_a_flat_minibatch``)."""
    agent, batch = update_case(seed)
    batch["values"] = batch["values"] + np.random.default_rng(seed).normal(0, 0.5, batch["values"].shape)
    batch = with_a_flat_minibatch(batch, seed, SWITCH_UPDATE_CONFIG["minibatches"])
    return agent, rounded_inside_the_clip(agent, batch, seed, update_config(seed))


def update_optimizer(agent) -> Adam:
    """The grader's own Adam for the update's sub-test, so that only ppo_update's switches act there."""
    c = UPDATE_OPTIMIZER_CONFIG
    return Adam(flatten([agent["actor"], agent["critic"]]), lr=c["lr"], eps=c["adam_eps"])


def fresh_agent(seed: int):
    return update_case(seed)[0]


# ------------------------------------------------------------------------------------------------ the outputs


def outputs(seed: int, d: dict, run) -> dict:
    """What each switch's function gives under details ``d``; ``run`` supplies the implementation (student or
    oracle): run(kind, d, inputs) -> plain data."""
    agent = fresh_agent(seed)
    out = {"init": run("init", d, None)}
    out["optimizer"] = run("optimizer", d, (agent, adam_gradients(seed, agent)))
    out["learning_rate"] = run("learning_rate", d, None)
    segment = truncation_segment(seed)
    out["advantages"] = on_valid_steps(run("advantages", d, segment), segment)
    out["update"], out[STATISTICS] = run("update", d, update_inputs(seed))
    return out


def oracle_run(seed: int, changed: dict | None = None):
    """The oracle's implementation for ``outputs``, with the config values of ``changed`` in place of the seed's;
    an update gives the parameters it leaves and the statistics it returns (``oracle.statistics``)."""
    def run(kind, d, inputs):
        c = {**update_config(seed), **optimizer_config(seed), **(changed or {})}
        if kind == "init":
            return flatten(list(oracle.init_agent(np.random.default_rng(seed), HIDDEN, d).values()))
        if kind == "optimizer":
            agent, grads = inputs
            optimizer = oracle.make_optimizer(agent, c, d)
            for g in grads:
                optimizer.step(g)
            return flatten([agent["actor"], agent["critic"]])
        if kind == "learning_rate":
            return [oracle.learning_rate(u, N_UPDATES, c["lr"], d) for u in range(N_UPDATES)]
        if kind == "advantages":
            s = inputs
            return list(oracle.advantages(s.rewards, s.values, s.terminated, s.truncated, GAMMA, LAM, d))
        agent, batch = inputs
        optimizer, records = update_optimizer(agent), []
        oracle.ppo_update(agent, optimizer, batch, c, d, np.random.default_rng(seed), records)
        return flatten([agent["actor"], agent["critic"]]), oracle.statistics(records, c["clip_eps"])
    return run


# ------------------------------------------------------------------------------------------------ the checks


class Defaults(WrittenOnce):
    id = "B.defaults"
    name = "The defaults are Project A: Details() names A's nine choices and trains exactly as ppo.train"

    class Bar(Bar):
        num_envs: int = Field(description="CartPole environments of the two runs compared")
        n_steps: int = Field(description="steps per environment and update")
        n_updates: int = Field(description="updates of each of the two runs")
        tolerance: float = Field(description="largest gap per weight between the two runs (same math, other order)")

    def spec(self, ctx) -> dict:
        # the course's runs train with its hyperparameters: a details.py that parts from ppo.train only off them (a
        # value hard-coded at its default) leaves them as they are
        return {"kind": "b_defaults", "bar": ctx.bar.model_dump(), "seed": ctx.seed,
                "seed_shown": ctx.seed_shown(ctx.seed), "details": DETAILS, "config": DEFAULTS_CONFIG,
                "trained": {"config": Hyperparameters().model_dump()}}

    def inputs(self, spec: dict, ctx) -> dict:
        return {key: spec[key] for key in ("bar", "seed", "config")}

    def gather(self, student, inputs: dict) -> dict:
        return collect_defaults(student, inputs)

    def decide(self, spec: dict, data):
        return judge_defaults(spec, data)


class Switches(WrittenOnce):
    id = "B.switches"
    credit = "per_case"  # a ninth of the points per switch, as B's README says
    name = "Each switch, flipped on fixed weights and a fixed batch, changes exactly what the reference's does"
    Bar = ToleranceBar

    def spec(self, ctx) -> dict:
        seed = ctx.seed
        want = {label: outputs(seed, d, oracle_run(seed)) for label, d in settings()}
        kinds = {name: kind_of(want, name) for name in DETAILS}
        agent = fresh_agent(seed)
        inputs = {"agent": agent, "gradients": adam_gradients(seed, agent), "segment": truncation_segment(seed),
                  "update": update_inputs(seed)}
        constants = {"update": update_config(seed), "optimizer": optimizer_config(seed),
                     "update_optimizer": UPDATE_OPTIMIZER_CONFIG, "hidden": HIDDEN, "n_updates": N_UPDATES,
                     "gamma": GAMMA, "lam": LAM}
        return {"kind": "b_switches", "seed": seed, "settings": [[label, d] for label, d in settings()],
                "want": encode(want), "kinds": kinds, "where": WHERE, "inputs": encode(inputs),
                "constants": constants, "tol": ctx.bar.tolerance, "trained": at_the_course(seed, kinds),
                **switch_mistakes(want, seed)}

    def inputs(self, spec: dict, ctx) -> dict:
        return {key: spec[key] for key in ("seed", "settings", "inputs", "constants")}

    def gather(self, student, inputs: dict) -> dict:
        return collect_switches(student, inputs)

    def decide(self, spec: dict, data):
        return judge_switches(spec, data)


CONFIGURED = ("optimizer", "update")  # the outputs the clip half-width and Adam's epsilon reach


def at_the_course(seed: int, kinds: dict) -> dict:
    """The switches' outputs that depend on the clip half-width and Adam's epsilon, with the course's values (which
    every graded run trains with) in place of the check's: the baseline's, and each switch's own where it is one of
    them. A switch that hard-codes one at its default fails the check but not the course's runs."""
    course = Hyperparameters()
    values = {"clip_eps": course.clip_eps, "adam_eps": course.adam_eps}
    run, want = oracle_run(seed, values), {}
    for label, d in settings():
        shown = CONFIGURED if label == "baseline" else [k for k in CONFIGURED if kinds[label] == k]
        if shown:
            out = outputs(seed, d, run)
            want[label] = {k: out[k] for k in shown} | ({STATISTICS: out[STATISTICS]} if "update" in shown else {})
    return {"values": values, "want": encode(want)}


def switch_mistakes(want: dict, seed: int) -> dict:
    """B.switches' known mistakes: each wrong configuration's output on the one setting and function that shows it;
    and, for each switch, the mistake the judge sees by itself when flipping the switch changes nothing."""
    recorded = mistakes_by_part(MISTAKES, wrong_configurations(want, seed))
    ignored = {name: f"B.switches.{name}-ignored" for name in DETAILS}
    return {**recorded, "ignored": ignored,
            "findings": {**{mid: MISTAKES[mid].text for mid in ignored.values()}, **recorded["findings"]}}


def wrong_configurations(want: dict, seed: int) -> dict:
    """Mistake id -> (the setting and function whose output shows it, what that output is under the mistake on
    ``seed``'s inputs), for the mistakes that are a wrong configuration of the oracle (``want``: its outputs)."""
    inputs = {"update": update_inputs, "optimizer": lambda s: (fresh_agent(s), adam_gradients(s, fresh_agent(s)))}
    both = MISTAKES["B.switches.clip-also-drops-normalization"]
    found = {both.id: (("clip_gradients", "update"),
                       oracle_run(seed)("update", flipped(None) | both.variant, update_inputs(seed))[0]),
             "B.switches.truncation-never-bootstraps": (("baseline", "advantages"),
                                                        want["bootstrap_truncation"]["advantages"])}
    for mistake_id, label, kind in (("B.switches.adam-eps-fixed", "baseline", "optimizer"),
                                    ("B.switches.clip-eps-fixed", "baseline", "update"),
                                    ("B.switches.value-clip-eps-fixed", "clip_value_loss", "update")):
        mistake, setting = MISTAKES[mistake_id], flipped(None if label == "baseline" else label)
        value = oracle_run(seed, mistake.variant)(kind, setting, inputs[kind](seed))
        found[mistake_id] = ((label, kind), value[0] if kind == "update" else value)
    return found
