"""Project B's B.summary: the ablation's statistics (setting, metric, median/min/max per setting, and the bar for one
factor) on crafted scores, against the oracle; and the helpers that read a median/min/max table, which B.table's
judge uses too."""

from __future__ import annotations

from autograder.checks import ToleranceBar
from autograder.comparisons import close
from autograder.findings import computed, of_piece
from autograder.projects._shared.encode import mistakes_by_part
from autograder.projects._shared.once import WrittenOnce
from autograder.projects.b_ablations import oracle
from autograder.projects.b_ablations.catalogue import DETAILS, flipped
from autograder.projects.b_ablations.crafted import score_cases
from autograder.projects.b_ablations.mistakes import MISTAKES
from autograder.projects.b_ablations.public.summary import collect_summary, judge_summary, table_of
from capstone_check.student import StudentError


def log_cases():
    nan = float("nan")
    return [[{"episode_return": v} for v in returns] for returns in
            ([10.0, nan, 30.0, 500.0], [nan, 22.0, nan], [17.0, 19.0, 21.0, 23.0, 25.0])]


class Summary(WrittenOnce):
    id = "B.summary"
    name = "The ablation's statistics: setting, metric, median/min/max per setting, and the bar for one factor"
    Bar = ToleranceBar

    def spec(self, ctx) -> dict:
        scores, factors = score_cases(ctx.seed)
        logs = log_cases()
        return {"kind": "b_summary", "names": ["baseline", *DETAILS],
                "settings": {name: flipped(None if name == "baseline" else name) for name in ["baseline", *DETAILS]},
                "logs": logs, "metric": [oracle.training_score([e["episode_return"] for e in log]) for log in logs],
                "scores": scores, "factors": factors, "summary": oracle.summarize(scores),
                "matters": [oracle.matters(scores, f) for f in factors], "tol": ctx.bar.tolerance,
                "figures": {f: [oracle.effect(scores, f), oracle.spread(scores, f)] for f in factors},
                **summary_mistakes(scores, factors)}

    def inputs(self, spec: dict, ctx) -> dict:
        return {key: spec[key] for key in ("names", "logs", "scores", "factors")}

    def gather(self, student, inputs: dict) -> dict:
        return collect_summary(student, inputs)

    def decide(self, spec: dict, data):
        return judge_summary(spec, data)


def summary_mistakes(scores: dict, factors: list[str]) -> dict:
    """The statistics' known mistakes: each one's outputs on its piece's cases, where it can be computed on all."""
    found = {}
    for piece, cases in piece_cases(scores, factors).items():
        for mistake in of_piece(MISTAKES, piece):
            values = [computed(mistake.variant, *args) for args in cases]
            if all(value is not None for value in values):
                found[mistake.id] = ([piece], without_names(values))
    return mistakes_by_part(MISTAKES, found)


def without_names(value):
    """``value`` with the settings' names left out of its lists (a summary's rows): the checker compares numbers,
    in the order of the rows."""
    if isinstance(value, (list, tuple)):
        return [without_names(v) for v in value if not isinstance(v, str)]
    return value


def piece_cases(scores: dict, factors: list[str]) -> dict:
    """Each statistic's cases, as its known mistakes are matched on them: piece -> the arguments of each call whose
    output the check collects (``matters`` is called once over all the factors)."""
    return {"training_score": [(log,) for log in log_cases()], "summarize": [(scores,)],
            "matters": [(scores, factors)]}


def close_table(got: dict, want: dict, tol: float) -> bool:
    return set(got) == set(want) and all(close([got[k][s] for s in ("median", "min", "max")],
                                               [want[k][s] for s in ("median", "min", "max")], tol) for k in want)


def plain_table(summary: dict) -> dict:
    try:
        return table_of(summary)
    except StudentError:
        return {}
