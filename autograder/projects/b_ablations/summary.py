"""Project B's B.summary: the ablation's statistics (setting, metric, median/min/max per setting, and the bar for one
factor) on crafted scores, against the oracle; and the helpers that read a median/min/max table, which B.table's
judge uses too."""

from __future__ import annotations

from autograder.checks import Check, Malformed, ToleranceBar, Verdict, require
from autograder.comparisons import close
from autograder.findings import matched, of_piece
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import DETAILS, flipped
from autograder.projects.b_ablations.crafted import matters_message, score_cases, verdicts
from autograder.projects.b_ablations.mistakes import MISTAKES
from capstone_check.kinds.b_ablations import table_of
from capstone_check.student import StudentError, as_float, describe


def log_cases():
    nan = float("nan")
    return [[{"episode_return": v} for v in returns] for returns in
            ([10.0, nan, 30.0, 500.0], [nan, 22.0, nan], [17.0, 19.0, 21.0, 23.0, 25.0])]


class Summary(Check):
    id = "B.summary"
    name = "The ablation's statistics: setting, metric, median/min/max per setting, and the bar for one factor"

    Bar = ToleranceBar

    def collect(self, student, ctx):
        scores, factors = score_cases(ctx.seed)
        setting = student.fn("setting", "ablation")
        as_dict = {name: fields_of(setting(name)) for name in ["baseline", *DETAILS]}
        training_score = student.fn("training_score", "ablation")
        metric = [as_float(training_score(log), "training_score", nan=True) for log in log_cases()]
        summary = student.fn("summarize", "ablation")({k: list(v) for k, v in scores.items()})
        matters = student.fn("matters", "ablation")
        return {"setting": as_dict, "metric": metric, "summary": table_of(summary),
                "matters": [bool(matters({k: list(v) for k, v in scores.items()}, f)) for f in factors]}

    def judge(self, data, ctx):
        scores, factors = score_cases(ctx.seed)
        tol, failures = ctx.bar.tolerance, []
        setting, metric = require(data, "setting", dict), require(data, "metric", list)
        summary, matters = require(data, "summary", dict), require(data, "matters", list)
        wrong = [name for name in ["baseline", *DETAILS]
                 if setting.get(name) != flipped(None if name == "baseline" else name)]
        if wrong:
            failures.append(f"setting(name) should flip exactly that detail of Details() (baseline: none); wrong for "
                            f"{', '.join(wrong[:3])}")
        want = [oracle.training_score([e["episode_return"] for e in log]) for log in log_cases()]
        if not close(metric, want, tol):
            failures.append(f"training_score: expected {', '.join(f'{w:.4g}' for w in want)} on three logs (updates "
                            "with no finished episode skipped), found " + ", ".join(f"{v:.4g}" for v in metric))
        expected = oracle.summarize(scores)
        if not close_table(plain_table(summary), expected, tol):
            failures.append("summarize: each setting's median, min and max are taken over its seeds (not the mean, "
                            f"and not over the settings); for scores {scores['baseline']} the baseline's are "
                            f"{expected['baseline']}")
        if len(matters) != len(factors) or not all(isinstance(m, bool) for m in matters):
            raise Malformed(f"expected a verdict of matters for each of the {len(factors)} crafted factors")
        if matters != verdicts(scores, factors):
            failures.append(matters_message(scores, factors, matters))
        return Verdict.of(failures, 4, "setting, training_score, summarize and matters agree with the reference",
                          findings=summary_findings(scores, factors, metric, summary, matters))


def summary_findings(scores: dict, factors: list[str], metric: list, summary: dict, matters: list) -> list:
    """The statistics' mistakes the student's summary table or verdicts match."""
    table = [[name, *(row.get(s) for s in ("median", "min", "max"))] for name, row in summary.items()]
    got = {"training_score": metric, "summarize": [table], "matters": [matters]}
    return [finding for piece, cases in piece_cases(scores, factors).items()
            for finding in matched(of_piece(MISTAKES, piece), cases, got[piece])]


def piece_cases(scores: dict, factors: list[str]) -> dict:
    """Each statistic's cases, as its known mistakes are matched on them: piece -> the arguments of each call whose
    output the check collects (``matters`` is called once over all the factors)."""
    return {"training_score": [(log,) for log in log_cases()], "summarize": [(scores,)],
            "matters": [(scores, factors)]}


def fields_of(details) -> dict:
    import dataclasses

    if not dataclasses.is_dataclass(details):
        raise StudentError(f"setting() should return a Details, found {describe(details)}", "invalid")
    return {f.name: getattr(details, f.name) for f in dataclasses.fields(details)}


def close_table(got: dict, want: dict, tol: float) -> bool:
    return set(got) == set(want) and all(close([got[k][s] for s in ("median", "min", "max")],
                                               [want[k][s] for s in ("median", "min", "max")], tol) for k in want)


def plain_table(summary: dict) -> dict:
    try:
        return table_of(summary)
    except StudentError:
        return {}
