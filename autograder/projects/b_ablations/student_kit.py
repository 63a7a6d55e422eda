"""Project B's expected values for the students' checker: the defaults (decided by the student's own two runs), the
switches' outputs under every setting on the grader's fixed inputs, and the statistics on crafted scores."""

from __future__ import annotations

import functools
import json

from autograder.projects.b_ablations import reference_runs, switches
from autograder.projects.b_ablations.summary import Summary
from autograder.projects.b_ablations.catalogue import DETAILS, flipped
from autograder.projects.b_ablations.public import settings as checker
from autograder.projects.b_ablations.public import evidence as b_evidence
from autograder.projects.b_ablations.public import summary as b_summary
from autograder.projects.b_ablations.public import switches as b_switches


def table_evidence(ctx) -> dict:
    """What B.table is predicted from: the course's hyperparameters, against which the student's Config() is read,
    the public seeds results.json holds a score for, and the reference's own runs, which the pieces must remake."""
    return remaking({"kind": "b_table_evidence", "hyperparameters": ctx.bar.hyperparameters.model_dump(),
                     "seeds": list(ctx.seeds)}, ctx, ctx.bar.pieces_tolerance)


def bar_evidence(ctx) -> dict:
    return remaking({"kind": "b_bar_evidence", "seeds": list(ctx.seeds)}, ctx, ctx.bar.replay_tolerance)


def remaking(probe: dict, ctx, tolerance: float) -> dict:
    """``probe`` with what remaking the reference's runs takes (``b_ablations.public.remade``): the runs' size,
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
KINDS = {"b_defaults": checker.defaults, "b_switches": b_switches.switches, "b_summary": b_summary.summary,
         "b_table_evidence": b_evidence.table, "b_bar_evidence": b_evidence.bar}

SPECS = {"B.defaults": switches.Defaults().spec, "B.switches": switches.Switches().spec, "B.summary": Summary().spec}
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
