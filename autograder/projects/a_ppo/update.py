"""Project A's check of one whole update (A.update) on a fixed batch whose inputs make every branch count (the joint
gradient norm exceeds max_grad_norm, ratios leave the clip range): the networks it leaves and the statistics it
returns, and where it departs when it fails; the update's settings and probes, which A.ratio and A.bar share."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from capstone_check.cascade import Probe
from autograder.checks import Bar
from autograder.projects._shared.encode import encode, mistakes_as_values
from autograder.projects._shared.once import WrittenOnce
from autograder.findings import computed, of_check, of_piece
from autograder.projects.a_ppo.mistakes import MISTAKES, STATISTICS
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.ppo.cases import update_case, with_a_flat_minibatch
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from autograder.projects._shared.public import ppo_statistics
from capstone_check.calls import flat
from autograder.projects.a_ppo.public.located import RecordingAdam
from autograder.projects.a_ppo.public.batch import config as configured
from autograder.projects.a_ppo.public.update import collect_update, judge_update, update_error_said
from rlkit.cartpole import N_ACTIONS
from rlkit.categorical import log_prob
from rlkit.nn import flatten


# every value ppo_update reads is off Config's default (6, 8, 0.2, 0.5, 0.0, 0.5), so a piece that hard-codes one
# instead of reading the config ends far beyond the tolerance on every tested seed (docs/check-coverage.md)
UPDATE_CONFIG = {"epochs": 4, "minibatches": 4, "clip_eps": 0.15, "vf_coef": 0.7, "ent_coef": 0.01,
                 "max_grad_norm": 0.4}
UPDATE_LR = 0.03  # with 4 epochs, large enough that ratios leave the clip range within the update, on every seed
RETURN_SCALE = 5.0  # returns = V + 5 A: the value loss's gradient makes the joint norm exceed max_grad_norm


def update_inputs(seed: int) -> tuple[dict, dict]:
    """(agent, batch) of A.update: the shared update case, returns V + 5 A, with the first minibatch's advantages
    nearly equal (``with_a_flat_minibatch``)."""
    agent, batch = update_case(seed, RETURN_SCALE)
    return agent, with_a_flat_minibatch(batch, seed, UPDATE_CONFIG["minibatches"])


def student_config(student):
    """The student's ``Config`` with the update check's settings."""
    return configured(student, UPDATE_CONFIG)


def ppo_probes() -> list[Probe]:
    """Small calls of the pieces ``ppo_update`` relies on, for naming the cause when it fails."""
    rng = np.random.default_rng(0)
    logits, actions = rng.normal(0, 1, (6, N_ACTIONS)), np.array([0, 1, 1, 0, 1, 0])
    logp, adv = log_prob(logits, actions), rng.normal(0, 1, 6)
    return [Probe("importance_ratio", (logp + 0.1, logp), "logp + 0.1, logp", (6,)),
            Probe("clipped_surrogate", (logits, actions, logp - 0.5, adv, 0.2), "6 samples, eps 0.2",
                  [(), (6, N_ACTIONS)]),
            Probe("value_loss", (rng.normal(0, 1, 6), rng.normal(0, 1, 6)), "6 values, 6 returns", [(), (6,)]),
            Probe("entropy_bonus", (logits,), "logits of 6 samples", [(), (6, N_ACTIONS)])]


def train_probes() -> list[Probe]:
    """The pieces ``train`` relies on: GAE on a small segment with both kinds of episode end, then the update's."""
    rng = np.random.default_rng(0)
    done = np.zeros((5, 2), dtype=bool)
    terminated, truncated = done.copy(), done.copy()
    terminated[2, 0], truncated[1, 1] = True, True
    segment = (rng.normal(1, 1, (5, 2)), rng.normal(0, 1, (6, 2)), terminated, truncated, 0.99, 0.95)
    return [Probe("gae", segment, "a 5 x 2 segment with a termination and a truncation", [(5, 2), (5, 2)]),
            *ppo_probes()]


UPDATE_VARIANTS = {  # a mistake worth naming when the student's parameters match the update it makes
    "gradients were not clipped (clip the joint norm of both networks' gradients to max_grad_norm)":
        {"clip_gradients": False},
    "advantages were not normalized per minibatch": {"normalize_advantages": False},
    "only one epoch was run (config.epochs passes over the batch)": {"multiple_epochs": False},
}


def reference_update(seed: int, details: dict | None = None, config: dict | None = None) -> dict:
    """The oracle's actor and critic after one update of A.update's case, with Project B's ``details`` switched and
    ``config``'s values in place of UPDATE_CONFIG's."""
    return reference_run(seed, details, config)[0]


def reference_steps(seed: int) -> list[np.ndarray]:
    """The parameters (flat, both networks) after each Adam step of the reference's update of A.update's case."""
    return reference_run(seed)[1]


def reference_run(seed: int, details: dict | None = None, config: dict | None = None, records: list | None = None):
    agent, batch = update_inputs(seed)
    optimizer = RecordingAdam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
    oracle.ppo_update(agent, optimizer, batch, {**UPDATE_CONFIG, **(config or {})}, np.random.default_rng(seed),
                      details, records=records)
    return {net: flatten(agent[net]) for net in ("actor", "critic")}, optimizer.after


def reference_records(seed: int) -> list[oracle.MinibatchRecord]:
    """What each minibatch of the last epoch of the reference's update of A.update's case gives its statistics."""
    records: list = []
    reference_run(seed, records=records)
    return records


def reference_statistics(seed: int) -> dict:
    """The statistics the reference's update of A.update's case returns (``oracle.statistics``)."""
    return oracle.statistics(reference_records(seed), UPDATE_CONFIG["clip_eps"])


def rung_statistics() -> list[dict]:
    """The statistics the reference's update returns on each rung of ``ppo_statistics.RUNGS``."""
    wants = []
    for rung in ppo_statistics.RUNGS:
        agent, batch, values = ppo_statistics.rung_case(*rung)
        records: list = []
        oracle.ppo_update(agent, ppo_statistics.rung_optimizer(agent), batch, values,
                          np.random.default_rng(ppo_statistics.RUNG_SEED), records=records)
        wants.append(oracle.statistics(records, values["clip_eps"]))
    return wants


def statistics_variants(seed: int) -> dict[str, list | None]:
    """What each known mistake of the statistics returns on A.update's case, as the four numbers in
    ``ppo_statistics.STATISTICS``' order (None where a variant cannot be computed on it)."""
    records = reference_records(seed)
    return {m.id: computed(m.variant, records, UPDATE_CONFIG["clip_eps"]) for m in of_piece(MISTAKES, STATISTICS)}


RECIPE = (f"the reference: {UPDATE_CONFIG['epochs']} epochs of {UPDATE_CONFIG['minibatches']} minibatches of a "
          "fresh rng.permutation each, advantages normalized per minibatch, entropy and value terms included, the "
          "joint gradient norm of both networks clipped to max_grad_norm, one Adam step per minibatch")
# the values of the update's configuration every graded run trains with (course.yml's hyperparameters, the
# chapter's): A.update's own are off them, so that a piece hard-coding one fails there
TRAINED = {key: getattr(Hyperparameters(), key) for key in UPDATE_CONFIG}
READ = ("agent", "batch", "config", "lr", "seed", "probes", "trained", "statistics")  # what the child reads


class Update(WrittenOnce):
    id = "A.update"
    name = "One PPO update on a fixed batch: minibatch epochs, per-minibatch normalization, clipped, Adam"

    class Bar(Bar):
        tolerance: float = Field(description="largest gap per parameter from the reference's update")

    def spec(self, ctx) -> dict:
        agent, batch = update_inputs(ctx.seed)
        want, trained = reference_update(ctx.seed), reference_update(ctx.seed, config=TRAINED)
        statistics = statistics_variants(ctx.seed)  # the statistics' known mistakes, told by their four numbers
        mistakes = {**{m.id: reference_update(ctx.seed, *m.variant) for m in of_check(MISTAKES, self.id)
                       if m.piece is None}, **{mid: values for mid, values in statistics.items() if values is not None}}
        return {"kind": "a_update", "agent": encode(agent), "batch": encode(batch), "config": UPDATE_CONFIG,
                "lr": UPDATE_LR, "seed": ctx.seed, "want": encode({net: list(want[net]) for net in want}),
                "tol": ctx.bar.tolerance, "probes": encode([tuple(probe) for probe in ppo_probes()]),
                "trained": {"config": TRAINED, "want": encode({net: list(trained[net]) for net in trained})},
                "related": [{**statement, "want": flat(params)} for statement, params in related_updates(ctx.seed)],
                "one_network": {net: one_network([net]) for net in ("actor", "critic")},
                "steps": encode([list(step) for step in reference_steps(ctx.seed)]),
                "minibatches": UPDATE_CONFIG["minibatches"],
                "statistics": {"want": reference_statistics(ctx.seed), "rungs": rung_statistics()},
                "passed": "both networks match the reference after the update; its inputs make the joint gradient "
                          "norm exceed max_grad_norm and ratios leave the clip range", "recipe": RECIPE,
                **mistakes_as_values(MISTAKES, mistakes)}

    def inputs(self, spec: dict, ctx) -> dict:
        return {key: ({"config": spec[key]["config"]} if key == "trained" else {} if key == "statistics"
                      else spec[key]) for key in READ}

    def gather(self, student, inputs: dict) -> dict:
        return collect_update(student, inputs)

    def decide(self, spec: dict, data):
        return judge_update(spec, data)

    def located_on_error(self, partial, ctx) -> list[dict]:
        return update_error_said(self.full_spec(ctx), partial)


UPDATE_SUBJECT = "your update"
RELATED_UPDATES = {  # id -> (the config's values changed, what the student's update then is, said after the subject)
    "one-epoch": ({"epochs": 1}, "is the reference's run for one epoch only"),
    "one-minibatch": ({"minibatches": 1}, "is the reference's with the whole batch as one minibatch"),
    "no-entropy-term": ({"ent_coef": 0.0}, "is the reference's without the entropy term"),
    "no-value-term": ({"vf_coef": 0.0}, "is the reference's without the value term"),
    "no-norm-clip": ({"max_grad_norm": np.inf}, "is the reference's without clipping the gradient norm"),
    "no-ratio-clip": ({"clip_eps": np.inf}, "is the reference's without clipping the ratio"),
}


RELATED_CONFIGS = [config for config, _ in RELATED_UPDATES.values()]  # a default said by one of these is said once


def one_network(departs: list[str]) -> list[dict]:
    """The statement that an update departs in one network only, when it does (``departs``: the networks that do)."""
    if len(departs) != 1:
        return []
    return [{"id": f"{Update.id}.{departs[0]}-only",
             "text": f"{UPDATE_SUBJECT} differs only in the {departs[0]}'s parameters"}]


def related_updates(seed: int) -> list[tuple[dict, dict]]:
    """The reference's updates of the case that a wrong one may be exactly, each with its statement: the config
    changed as ``RELATED_UPDATES`` says, or one field of it at Config's default (read from somewhere else)."""
    defaults = Hyperparameters()
    related = [({"id": f"{Update.id}.{name}", "text": f"{UPDATE_SUBJECT} {text}"}, config)
               for name, (config, text) in RELATED_UPDATES.items()]
    related += [({"id": f"{Update.id}.default-{field.replace('_', '-')}",
                  "text": f"{UPDATE_SUBJECT} is the reference's with config.{field} at Config's default instead of the "
                          "value in the config it was given"}, {field: getattr(defaults, field)})
                for field in UPDATE_CONFIG if {field: getattr(defaults, field)} not in RELATED_CONFIGS]
    return [(statement, reference_update(seed, config=config)) for statement, config in related]
