"""Project B's rows left to final grading, predicted from what the folder holds: final grading reads results.json
and replays runs.npz as they are, with the course's hyperparameters (B.table), and judges the chapter's bar on its own
runs of the ablated settings (B.bar), which results.json's scores stand in for here. This kit has no reference to
replay a run against, so it trusts the table's scores; final grading does not. What it can tell of the replay, it
tells from the reference's own runs (``remade``): pieces that do not remake them lose the row there."""

from __future__ import annotations

import json
import math

import numpy as np

from . import remade as b_remade
from .settings import config_with
from capstone_check.student import StudentError, describe
from capstone_check.verdict import Verdict

TABLE, RUNS = "results.json", "runs.npz"


def _choices(student) -> tuple[list[str], list[str]]:
    ablated, named = student.fn("ablated", "ablation")(), student.fn("conclusion", "ablation")()
    for what, value in (("ablated()", ablated), ("conclusion()", named)):
        if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) for v in value):
            raise StudentError(f"{what} should return a tuple of detail names, found {describe(value)}", "invalid")
    return list(dict.fromkeys(ablated)), list(dict.fromkeys(named))


def results_table(student):
    """results.json as JSON, or a StudentError saying it is missing or not JSON (final grading reads it so too)."""
    path = student.folder / TABLE
    if not path.is_file():
        raise StudentError(f"expected {TABLE} beside ablation.py (run `python ablation.py` to write it)", "missing")
    try:
        return json.loads(path.read_text()[:1_000_000])
    except ValueError as exc:
        raise StudentError(f"{TABLE} is not valid JSON: {exc}", "invalid") from None


def _scores(student) -> dict:
    """results.json's scores, or a StudentError saying what is missing."""
    table = results_table(student)
    if not isinstance(table, dict) or not isinstance(table.get("scores"), dict):
        raise StudentError(f"{TABLE} should hold 'scores': {{setting: [score per seed]}}, as save_results writes",
                           "invalid")
    return table


def _row(scores: dict, name: str, seeds: int) -> list[float] | None:
    """A setting's scores when they are one finite number per seed, else None."""
    row = scores.get(name)
    if not isinstance(row, list) or len(row) != seeds:
        return None
    try:
        row = [float(x) for x in row]
    except (TypeError, ValueError):
        return None
    return row if all(math.isfinite(x) for x in row) else None


def _summarizes(summary, scores: dict) -> bool:
    """Whether the table's summary is each setting's median, min and max of its own scores."""
    if not isinstance(summary, dict) or set(summary) != set(scores):
        return False
    try:
        return all(np.allclose([float(summary[k][s]) for s in ("median", "min", "max")],
                               [np.median(v), np.min(v), np.max(v)], rtol=1e-9, atol=1e-9) for k, v in scores.items())
    except (KeyError, TypeError, ValueError):
        return False


def table(student, spec: dict) -> Verdict:
    """B.table as final grading counts it, if each graded row of results.json is what its run scored: its share of
    the graded rows (baseline and named), and the form's two cases when every graded row is whole. A Config() off
    the course's hyperparameters, or no runs.npz, earns nothing there."""
    config = config_with(student)
    changed = [f"{k} {getattr(config, k, None)!r} (the course's: {v!r})" for k, v in spec["hyperparameters"].items()
               if getattr(config, k, None) != v]
    if changed:
        return Verdict(0.0, "final grading replays your runs with the course's hyperparameters, and your Config() "
                       f"differs: {'; '.join(changed)}")
    if not (student.folder / RUNS).is_file():
        return Verdict(0.0, f"no {RUNS} beside ablation.py, so final grading has no run to replay")
    results, (ablated, named) = _scores(student), _choices(student)
    scores, seeds = results["scores"], len(spec["seeds"])
    graded = ["baseline", *named]
    whole = {name: row for name in graded if (row := _row(scores, name, seeds)) is not None}
    wrong = [name for name in graded if name not in whole]
    form = [name for name in ["baseline", *ablated] if name not in scores]
    rows = {name: r for name in scores if (r := _row(scores, name, seeds)) is not None}
    summary_right = len(rows) == len(scores) and _summarizes(results.get("summary"), rows)
    remade = b_remade.first_departure(student, spec, graded) if "reference_runs" in spec else None
    credited = len(whole) + (0 if wrong else 2 - bool(form) - (not summary_right))
    said = [f"{name} does not hold one finite score per public seed ({seeds})" for name in wrong]
    said += [f"no scores for {', '.join(form)}"] * bool(form)
    said += ["its summary is not the median, min and max of its own scores"] * (not summary_right)
    return Verdict(credited / (len(graded) + 2), f"your {TABLE}: " + ("; ".join(said) if said else
                   "every graded row holds a score per public seed and the summary matches them") +
                   " (final grading also checks each score against its replay of your runs)", remade=remade)


def bar(student, spec: dict) -> Verdict:
    """B.bar as final grading counts it, if its own runs score what results.json holds: whether
    an ablated detail clears the chapter's bar (its median moves beyond the larger seed spread of the two settings),
    and whether every detail conclusion() names does. Final grading's runs do not read results.json: where a row
    there is not one score per public seed, nothing is predicted from it."""
    ablated, named = _choices(student)
    remade = b_remade.first_departure(student, spec, ["baseline", *ablated]) if "reference_runs" in spec else None
    try:
        scores, seeds = _scores(student)["scores"], len(spec["seeds"])
    except StudentError as exc:
        return Verdict(1.0, f"{exc}: nothing to predict the bar from", remade=remade)
    rows = {name: r for name in ["baseline", *ablated] if (r := _row(scores, name, seeds)) is not None}
    if "baseline" not in rows:
        return Verdict(1.0, f"your {TABLE} holds no baseline score per public seed: nothing to predict the bar from",
                       remade=remade)
    clearing = [f for f in ablated if f in rows and _clears(rows, f)]
    failures = ["no ablated detail clears the bar in it"] * (not clearing and set(ablated) <= set(rows))
    missed = [f for f in named if f in rows and f not in clearing]
    failures += [f"conclusion() names {', '.join(missed)}, which does not clear the bar there"] * bool(missed)
    return Verdict(1 - len(failures) / 2, f"by the scores of your {TABLE}: " + (
        "; ".join(failures) if failures else f"{', '.join(named)} clears the bar") +
        " (final grading judges the bar on its own runs of your settings)", remade=remade)


def _clears(scores: dict, name: str) -> bool:
    change = np.median(scores[name]) - np.median(scores["baseline"])
    return bool(abs(change) > max(np.ptp(scores[name]), np.ptp(scores["baseline"])))
