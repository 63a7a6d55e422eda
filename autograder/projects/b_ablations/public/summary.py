"""Project B's B.summary in both halves: what the student's statistics give on crafted logs and scores
(``collect_summary``), and how they compare with the reference's (``judge_summary``); final grading runs the same
two (``autograder.projects.b_ablations.summary``)."""

from __future__ import annotations

import dataclasses

from capstone_check.calls import recognised_parts, with_findings
from capstone_check.student import StudentError, as_float, describe
from capstone_check.values import close
from capstone_check.verdict import Verdict


def table_of(summary) -> dict:
    if not isinstance(summary, dict):
        raise StudentError(f"summarize should return a dict of settings, found {describe(summary)}", "invalid")
    try:
        return {str(k): {s: float(v[s]) for s in ("median", "min", "max")} for k, v in summary.items()}
    except (KeyError, TypeError, ValueError):
        raise StudentError("summarize should give {setting: {'median': ..., 'min': ..., 'max': ...}}",
                           "invalid") from None


def summary(student, spec: dict) -> Verdict:
    """B.summary, collected and judged in one process."""
    return judge_summary(spec, collect_summary(student, spec))


def collect_summary(student, spec: dict) -> dict:
    """What ``setting`` gives for each name (its Details' fields), ``training_score`` on each log, ``summarize`` on the
    crafted scores and ``matters`` on each crafted factor."""
    setting = student.fn("setting", "ablation")
    fields = {}
    for name in spec["names"]:
        details = setting(name)
        if not dataclasses.is_dataclass(details):
            raise StudentError(f"setting() should return a Details, found {describe(details)}", "invalid")
        fields[name] = {f.name: getattr(details, f.name) for f in dataclasses.fields(details)}
    score = student.fn("training_score", "ablation")
    metric = [as_float(score(log), "training_score", nan=True) for log in spec["logs"]]
    scores = spec["scores"]
    table = table_of(student.fn("summarize", "ablation")({k: list(v) for k, v in scores.items()}))
    matters = student.fn("matters", "ablation")
    decided = [bool(matters({k: list(v) for k, v in scores.items()}, f)) for f in spec["factors"]]
    return {"fields": fields, "metric": metric, "table": table, "decided": decided}


def judge_summary(spec: dict, collected) -> Verdict:
    """The four statistics' pieces (``collected``: untrusted where another process sent it) against the reference's."""
    if not isinstance(collected, dict) or not {"fields", "metric", "table", "decided"} <= set(collected):
        raise StudentError("the summary collected is not the check's", "invalid")
    fields, metric, decided = collected["fields"], collected["metric"], collected["decided"]
    if not (isinstance(fields, dict) and isinstance(metric, list) and len(metric) == len(spec["metric"])
            and isinstance(decided, list) and len(decided) == len(spec["matters"])):
        raise StudentError("the summary collected is not the check's", "invalid")
    metric, table = [float(v) for v in metric], table_of(collected["table"])
    failures, tol, scores = [], spec["tol"], spec["scores"]
    wrong = [name for name in spec["names"] if fields.get(name) != spec["settings"][name]]
    if wrong:
        failures.append(f"setting(name) should flip exactly that detail of Details() (baseline: none); wrong for "
                        f"{', '.join(wrong[:3])}")
    if not close(metric, spec["metric"], tol):
        failures.append(f"training_score: expected {', '.join(f'{w:.4g}' for w in spec['metric'])} on three logs "
                        "(updates with no finished episode skipped), found " + ", ".join(f"{v:.4g}" for v in metric))
    want = spec["summary"]
    if not (set(table) == set(want) and all(close([table[k][s] for s in ("median", "min", "max")],
                                                  [want[k][s] for s in ("median", "min", "max")], tol)
                                            for k in want)):
        failures.append("summarize: each setting's median, min and max are taken over its seeds (not the mean, and "
                        f"not over the settings); for scores {scores['baseline']} the baseline's are "
                        f"{want['baseline']}")
    if decided != spec["matters"]:
        failures.append(matters_failure(spec, decided))
    got = {"training_score": metric, "summarize": [[table[k][s] for s in ("median", "min", "max")] for k in table],
           "matters": decided}
    return with_findings(Verdict.of(failures, 4, "setting, training_score, summarize and matters agree with the "
                                                 "reference"), spec, recognised_parts(spec, got))


def matters_failure(spec: dict, decided: list) -> str:
    """The first crafted factor ``matters`` decided wrong, with its figures (``spec["figures"]``: the median's change
    and the seeds' spread) and the chapter's bar."""
    off = [i for i, (mine, right) in enumerate(zip(decided, spec["matters"])) if mine != right]
    name, scores = spec["factors"][off[0]], spec["scores"]
    change, spread = spec["figures"][name]
    return (f"matters returned {decided[off[0]]} for {name}: median change {change:+g}, seed spread {spread:g} "
            f"(scores {_ints(scores[name])}, baseline {_ints(scores['baseline'])}), and the bar is |change| > "
            f"spread, strictly; {len(off)} of {len(decided)} crafted factors wrong")


def _ints(row) -> list:
    return [int(v) if float(v).is_integer() else v for v in row]
