"""Project B's expected values for the students' checker: the defaults (decided by the student's own two runs), the
switches' outputs under every setting on the grader's fixed inputs, and the statistics on crafted scores."""

from __future__ import annotations

import functools
import json

from autograder.projects.b_ablations import reference_runs, switches
from autograder.projects.b_ablations.summary import Summary
from autograder.projects.b_ablations.catalogue import DETAILS, WHERE, flipped
from autograder.projects.b_ablations.mistakes import MISTAKES
from autograder.projects._shared.encode import encode, mistakes_by_part
from autograder.projects._shared.ppo.hyperparameters import Hyperparameters
from capstone_check.kinds import b_ablations as checker, b_summary, b_evidence


def defaults(ctx) -> dict:
    # the course's runs train with its hyperparameters: a details.py that parts from ppo.train only off them (a
    # value hard-coded at its default) leaves them as they are
    return {"kind": "b_defaults", "bar": ctx.bar.model_dump(), "seed": ctx.seed, "details": DETAILS,
            "config": switches.DEFAULTS_CONFIG, "trained": {"config": Hyperparameters().model_dump()}}


def switch_settings(ctx) -> dict:
    seed = ctx.seed
    want = {label: switches.outputs(seed, d, switches.oracle_run(seed)) for label, d in switches.settings()}
    kinds = {name: checker.kind_of(want, name) for name in DETAILS}
    agent = switches.fresh_agent(seed)
    inputs = {"agent": agent, "gradients": switches.adam_gradients(seed, agent),
              "segment": switches.truncation_segment(seed), "update": switches.update_inputs(seed)}
    constants = {"update": switches.update_config(seed), "optimizer": switches.optimizer_config(seed),
                 "update_optimizer": switches.UPDATE_OPTIMIZER_CONFIG,
                 "hidden": switches.HIDDEN, "n_updates": switches.N_UPDATES, "gamma": switches.GAMMA,
                 "lam": switches.LAM}
    return {"kind": "b_switches", "seed": seed, "settings": [[label, d] for label, d in switches.settings()],
            "want": encode(want), "kinds": kinds, "where": WHERE, "inputs": encode(inputs), "constants": constants,
            "tol": ctx.bar.tolerance, "trained": at_the_course(seed, kinds), **switch_mistakes(want, seed)}


CONFIGURED = ("optimizer", "update")  # the outputs the clip half-width and Adam's epsilon reach


def at_the_course(seed: int, kinds: dict) -> dict:
    """The switches' outputs that depend on the clip half-width and Adam's epsilon, with the course's values (which
    every graded run trains with) in place of the check's: the baseline's, and each switch's own where it is one of
    them. A switch that hard-codes one at its default fails the check but not the course's runs."""
    course = Hyperparameters()
    values = {"clip_eps": course.clip_eps, "adam_eps": course.adam_eps}
    run, want = switches.oracle_run(seed, values), {}
    for label, d in switches.settings():
        shown = CONFIGURED if label == "baseline" else [k for k in CONFIGURED if kinds[label] == k]
        if shown:
            out = switches.outputs(seed, d, run)
            want[label] = {k: out[k] for k in shown} | ({checker.STATISTICS: out[checker.STATISTICS]}
                                                         if "update" in shown else {})
    return {"values": values, "want": encode(want)}


def switch_mistakes(want: dict, seed: int) -> dict:
    """B.switches' known mistakes: each wrong configuration's output on the one setting and function that shows it;
    and, for each switch, the mistake the checker sees by itself when flipping the switch changes nothing."""
    recorded = mistakes_by_part(MISTAKES, switches.wrong_configurations(want, seed))
    ignored = {name: f"B.switches.{name}-ignored" for name in DETAILS}
    return {**recorded, "ignored": ignored,
            "findings": {**{mid: MISTAKES[mid].text for mid in ignored.values()}, **recorded["findings"]}}


def table_evidence(ctx) -> dict:
    """What B.table is predicted from: the course's hyperparameters, against which the student's Config() is read,
    the public seeds results.json holds a score for, and the reference's own runs, which the pieces must remake."""
    return remaking({"kind": "b_table_evidence", "hyperparameters": ctx.bar.hyperparameters.model_dump(),
                     "seeds": list(ctx.seeds)}, ctx, ctx.bar.pieces_tolerance)


def bar_evidence(ctx) -> dict:
    return remaking({"kind": "b_bar_evidence", "seeds": list(ctx.seeds)}, ctx, ctx.bar.replay_tolerance)


def remaking(probe: dict, ctx, tolerance: float) -> dict:
    """``probe`` with what remaking the reference's runs takes (``capstone_check.kinds.b_remade``): the runs' size,
    the course's hyperparameters, how far an update may land (``tolerance`` a weight, the row's own), each setting's
    switches, and the runs, whose arrays go beside the expected values."""
    made = {name: getattr(ctx.bar, name) for name in ("num_envs", "n_steps", "n_updates")}
    made["hyperparameters"] = ctx.bar.hyperparameters.model_dump()
    runs = _reference_runs(json.dumps(made, sort_keys=True), tuple(ctx.seeds))
    bar = {**made, "replay_tolerance": tolerance, "moment_tolerance": ctx.bar.moment_tolerance}
    settings = {name: flipped(None if name == "baseline" else name) for name in ["baseline", *DETAILS]}
    return {"probe": {**probe, "bar": bar, "settings": settings, "reference_runs": runs["reference_runs"]},
            "_files": runs["_files"]}


@functools.lru_cache(maxsize=4)
def _reference_runs(bar: str, seeds: tuple[int, ...]) -> dict:
    """The reference's runs (``reference_runs``), made once for both rows' probes."""
    return reference_runs.reference_runs(json.loads(bar), list(seeds))


# the checker's function that runs each kind of check SPECS and the probes make (a "calls" check runs the student's
# functions)
KINDS = {"b_defaults": checker.defaults, "b_switches": checker.switches, "b_summary": b_summary.summary,
         "b_table_evidence": b_evidence.table, "b_bar_evidence": b_evidence.bar}

SPECS = {"B.defaults": defaults, "B.switches": switch_settings, "B.summary": Summary().spec}
# What final grading adds that this kit cannot check (it holds no reference to replay a run against), the rows it
# credits them on and the public evidence each is predicted from. The table's runs are trained by the student's `train`
# and switches, the bar's by the grader; the statistics (B.summary) score nothing there: the table's scores were
# written by whatever code made results.json, which final grading compares with its replay, and the bar is measured
# on the grader's own runs (benchmarks/kit_prediction.py measured summary bugs whose folders keep B.table and B.bar).
FINAL_GRADING = {
    "B.table": {"adds": "left to final grading, which replays the runs of your runs.npz update by update against the "
                        "reference (not in this kit) and credits the table only if they follow from pieces that pass",
                "probe": table_evidence},
    "B.bar": {"adds": "left to final grading, which measures the bar on its own runs of the details you ablate, on "
                      "seeds you do not see (the reference's runs, not in this kit), and credits it only if your "
                      "pieces make a secret sample of those runs' updates, as pieces that pass",
              "probe": bar_evidence}}
