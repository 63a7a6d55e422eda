"""Project A's check of one whole update (A.update) on a fixed batch whose inputs make every branch count (the joint
gradient norm exceeds max_grad_norm, ratios leave the clip range): the networks it leaves and the statistics it
returns, and where it departs when it fails; the update's settings and probes, which A.ratio and A.bar share."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from capstone_check.cascade import Probe, explained
from autograder.checks import Bar, Check, Malformed, Verdict
from autograder.comparisons import close
from autograder.findings import Finding, computed, of_check, of_piece, same
from autograder.projects.a_ppo.mistakes import MISTAKES, STATISTICS
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.ppo.cases import update_case, with_a_flat_minibatch
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from capstone_check.kinds import a_statistics
from capstone_check.kinds.a_located import RecordingAdam, raised_course, update_course
from capstone_check.kinds.a_ppo import config as configured, parameter_name
from capstone_check.student import StudentError
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
    """The statistics the reference's update returns on each rung of ``a_statistics.RUNGS``."""
    wants = []
    for rung in a_statistics.RUNGS:
        agent, batch, values = a_statistics.rung_case(*rung)
        records: list = []
        oracle.ppo_update(agent, a_statistics.rung_optimizer(agent), batch, values,
                          np.random.default_rng(a_statistics.RUNG_SEED), records=records)
        wants.append(oracle.statistics(records, values["clip_eps"]))
    return wants


def statistics_variants(seed: int) -> dict[str, list | None]:
    """What each known mistake of the statistics returns on A.update's case, as the four numbers in
    ``a_statistics.STATISTICS``' order (None where a variant cannot be computed on it)."""
    records = reference_records(seed)
    return {m.id: computed(m.variant, records, UPDATE_CONFIG["clip_eps"]) for m in of_piece(MISTAKES, STATISTICS)}


def first_difference(got, want, tolerance) -> str | None:
    """Where two lists of parameter arrays first differ beyond ``tolerance``, named as a student reads a network:
    "layer 1's weight from input 3 to unit 1: ..."."""
    if len(got) != len(want):
        return f"{len(got)} parameter arrays, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        if close(g, w, tolerance):
            continue
        g = np.asarray(g, dtype=float)
        if g.shape != w.shape:
            return f"{parameter_name(k)} have shape {g.shape}, expected {w.shape}"
        if not np.all(np.isfinite(g)):
            return f"{parameter_name(k)} hold NaN or inf"
        index = tuple(int(i) for i in np.unravel_index(np.argmax(np.abs(g - w)), w.shape))
        return (f"{parameter_name(k, index)}: {g[index]:.6g}, expected {w[index]:.6g} ({parameter_name(k)}' largest "
                f"gap: {np.abs(g - w).max():.3g})")
    return None


def same_parameters(data, want, tolerance) -> bool:
    return all(first_difference(data[net], want[net], tolerance) is None for net in ("actor", "critic"))


def update_hint(data, seed: int, recipe: bool = True) -> str:
    """The named mistake whose update the student's parameters match, else the reference's recipe (unless ``recipe``
    is False: a row that says where the update departs is shorter without it)."""
    for hint, details in UPDATE_VARIANTS.items():
        if same_parameters(data, reference_update(seed, details), 1e-9):
            return f"hint: yours is an update in which {hint}"
    if not recipe:
        return ""
    return (f"the reference: {UPDATE_CONFIG['epochs']} epochs of {UPDATE_CONFIG['minibatches']} minibatches of a fresh "
            "rng.permutation each, advantages normalized per minibatch, entropy and value terms included, the joint "
            "gradient norm of both networks clipped to max_grad_norm, one Adam step per minibatch")


class Update(Check):
    id = "A.update"
    name = "One PPO update on a fixed batch: minibatch epochs, per-minibatch normalization, clipped, Adam"

    class Bar(Bar):
        tolerance: float = Field(description="largest gap per parameter from the reference's update")

    def collect(self, student, ctx):
        agent, batch = update_inputs(ctx.seed)
        optimizer = RecordingAdam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=UPDATE_LR)
        config = student_config(student)
        try:  # a call that raises fails the check, whatever it had changed before raising
            returned = explained(student, "ppo_update", lambda: student.fn("ppo_update")(
                agent, optimizer, batch, config, np.random.default_rng(ctx.seed)), ppo_probes())
        except StudentError as exc:  # the steps it made say where it had departed when it raised
            exc.partial = {"steps": optimizer.after, "taken": optimizer.taken}
            raise
        return {"actor": flatten(agent["actor"]), "critic": flatten(agent["critic"]), "steps": optimizer.after,
                "taken": optimizer.taken, "statistics": a_statistics.read(returned),
                "rungs": a_statistics.on_rungs(student.fn("ppo_update"), lambda values: configured(student, values))}

    def located_on_error(self, partial, ctx) -> list[dict]:
        return raised_course(partial, reference_steps(ctx.seed), ctx.bar.tolerance, UPDATE_CONFIG["minibatches"])

    def judge(self, data, ctx):
        want = reference_update(ctx.seed)
        failures = []
        for net in ("actor", "critic"):
            where = first_difference(data[net], want[net], ctx.bar.tolerance)
            if where:
                failures.append(f"the {net} differs at {where}")
        where = update_located(data, want, ctx) if failures else []
        got, rungs = data.get("statistics"), data.get("rungs")
        if not isinstance(got, dict) or not isinstance(rungs, list) or len(rungs) != len(a_statistics.RUNGS) \
                or not all(rung is None or isinstance(rung, dict) for rung in rungs):
            raise Malformed("expected the update's statistics and one result per rung of the ladder")
        departed = a_statistics.failures(got, reference_statistics(ctx.seed), ctx.bar.tolerance)
        ladder = [] if departed else a_statistics.ladder_failures(rungs, rung_statistics(), ctx.bar.tolerance)
        return Verdict.of(failures + departed + ladder, 3, "both networks match the reference after the update; its "
                          "inputs make the joint gradient norm exceed max_grad_norm and ratios leave the clip range",
                          note=update_hint(data, ctx.seed, recipe=not where) if failures else "",
                          findings=(update_findings(data, ctx.seed) if failures else [])
                          + (statistics_findings(got, ctx.seed) if departed else []), located=where,
                          case=a_statistics.smallest(rungs, rung_statistics(), ctx.bar.tolerance) if departed else "")


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


def update_located(data, want, ctx) -> list[dict]:
    """Where a whole update departs: in one network only (a feature of the output), at which of its Adam steps it
    first departs, or exactly where a related update of the reference's lands."""
    departs = [net for net in ("actor", "critic") if first_difference(data[net], want[net], ctx.bar.tolerance)]
    course = update_course(data.get("steps", []), int(data.get("taken", 0)), reference_steps(ctx.seed),
                           ctx.bar.tolerance, UPDATE_CONFIG["minibatches"])
    return one_network(departs) + course + [statement for statement, params in related_updates(ctx.seed)
                                            if same_parameters(data, params, 1e-9)]


def update_findings(data, seed: int) -> list[Finding]:
    """The update mistakes whose parameters are the student's."""
    return [m.finding for m in of_check(MISTAKES, "A.update")
            if m.piece is None and same_parameters(data, reference_update(seed, *m.variant), 1e-9)]


def statistics_findings(got: dict, seed: int) -> list[Finding]:
    """The statistics' mistakes whose four numbers are the student's."""
    values = [got.get(key) for key in a_statistics.STATISTICS]
    return [MISTAKES[mid].finding for mid, want in statistics_variants(seed).items()
            if want is not None and same(values, want)]
