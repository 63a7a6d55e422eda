"""Project B's checks of the ablation: the statistics on crafted scores, the student's table against their own runs,
and the chapter's bar on the grader's own re-run with the chosen seeds. Every run is the kit's loop with the student's
pieces, replayed update by update by the judge (``proofs``): the scores come from the judge's own replayed episodes,
and a run that does not follow from the pieces scores its check 0. B.table replays the runs the student made on their
own machine (``runs.npz``), so its numbers never depend on which CPU made them; B.bar re-runs on the grader's."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, model_validator

from autograder.checks import Bar, Check, Details, Malformed, Verdict, close, require
from autograder.findings import matched, of_piece
from autograder.projects._shared.ppo.recording import ReplayBar
from autograder.projects._shared.replay import departed_update
from autograder.projects.b_ablations import oracle, proofs
from autograder.projects.b_ablations.crafted import matters_message, score_cases, verdicts
from autograder.projects.b_ablations.mistakes import MISTAKES
from autograder.projects.b_ablations.catalogue import DETAILS, flipped
from autograder.projects.b_ablations.choices import choices, collected_choices
from autograder.student import StudentError, as_float, describe

TABLE = "results.json"


class RunBar(ReplayBar):
    factors: int = Field(description="how many details a student ablates")


class TableBar(RunBar):
    tolerance: float = Field(description="largest gap between the table's scores and the judge's on the same episodes")
    pieces_tolerance: float = Field(description="largest gap per parameter between the reference's replay of an "
                                    "update and what the folder's own pieces make of it from the same state")
    pieces_moment_tolerance: float = Field(description="largest relative gap in Adam's v between the two")


DEPARTED = {"departed", "departed_update"}  # B.bar's details when a run did not follow from the pieces


def departed_verdict(departed: list[str], what: str) -> Verdict:
    """Score 0: some run of the re-run did not follow from the student's pieces; the first two named, and how many."""
    more = f"; and {len(departed) - 2} more runs" if len(departed) > 2 else ""
    first = next((u for u in map(departed_update, departed) if u is not None), None)
    return Verdict(0.0, f"no {what} can be credited whose runs do not all follow from your pieces: "
                   + "; ".join(departed[:2]) + more, {"departed": len(departed), "departed_update": first})


# ------------------------------------------------------------------------------------------------ the statistics


def log_cases():
    nan = float("nan")
    return [[{"episode_return": v} for v in returns] for returns in
            ([10.0, nan, 30.0, 500.0], [nan, 22.0, nan], [17.0, 19.0, 21.0, 23.0, 25.0])]


class Summary(Check):
    id = "B.summary"
    name = "The ablation's statistics: setting, metric, median/min/max per setting, and the bar for one factor"

    class Bar(Bar):
        tolerance: float = Field(description="largest gap from the reference: absolute below 1, relative above")

    def collect(self, student, ctx):
        scores, factors = score_cases(ctx.seed)
        setting = student.fn("setting", "ablation")
        as_dict = {name: _fields(setting(name)) for name in ["baseline", *DETAILS]}
        training_score = student.fn("training_score", "ablation")
        metric = [as_float(training_score(log), "training_score", nan=True) for log in log_cases()]
        summary = student.fn("summarize", "ablation")({k: list(v) for k, v in scores.items()})
        matters = student.fn("matters", "ablation")
        return {"setting": as_dict, "metric": metric, "summary": _table(summary),
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
        if not _close_table(_plain_table(summary), expected, tol):
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
    return (matched(of_piece(MISTAKES, "training_score"), [(log,) for log in log_cases()], metric)
            + matched(of_piece(MISTAKES, "summarize"), [(scores,)], [table])
            + matched(of_piece(MISTAKES, "matters"), [(scores, factors)], [matters]))


def _fields(details) -> dict:
    import dataclasses

    if not dataclasses.is_dataclass(details):
        raise StudentError(f"setting() should return a Details, found {describe(details)}", "invalid")
    return {f.name: getattr(details, f.name) for f in dataclasses.fields(details)}


def _table(summary) -> dict:
    if not isinstance(summary, dict):
        raise StudentError(f"summarize should return a dict of settings, found {describe(summary)}", "invalid")
    try:
        return {str(k): {s: float(v[s]) for s in ("median", "min", "max")} for k, v in summary.items()}
    except (KeyError, TypeError, ValueError):
        raise StudentError("summarize should give {setting: {'median': ..., 'min': ..., 'max': ...}}",
                           "invalid") from None


def _close_table(got: dict, want: dict, tol: float) -> bool:
    return set(got) == set(want) and all(close([got[k][s] for s in ("median", "min", "max")],
                                               [want[k][s] for s in ("median", "min", "max")], tol) for k in want)


# ------------------------------------------------------------------------------------------------ the re-runs


class Table(Check):
    id = "B.table"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = ("Your results table is what your own runs (runs.npz) scored, each replayed update by update by the grader "
            "on the public seeds (baseline and named factors)")
    cost, per_seed, fixed_seeds = 8.0, True, "public"
    Bar = TableBar

    def collect(self, student, ctx):
        path = student.folder / TABLE
        if not path.is_file():
            raise StudentError(f"expected {TABLE} beside ablation.py (run `python ablation.py` to write it)", "missing")
        try:
            table = json.loads(path.read_text()[:1_000_000])
        except ValueError as exc:
            raise StudentError(f"{TABLE} is not valid JSON: {exc}", "invalid") from None
        ablated, named = choices(student, ctx.bar.factors)
        return {"runs": [proofs.own_runs(student, ["baseline", *named], ctx.seed, ctx.bar)],
                "table": [table], "ablated": [ablated], "named": [named]}

    def on_shard(self, data, ctx):
        """Run by the grader as soon as one seed's child returns: audit its runs now, in a process of its own."""
        proofs.start_audits(data, ctx.seeds, ctx.bar, proofs.OWN)

    def judge(self, data, ctx):
        """The judge's replay of the student's own runs is the truth; results.json is only compared with it. Its rows
        the grader replayed earn their share when they match; its form (every ablated row present, a summary of its own
        scores) earns its two cases only for a table whose replayed rows all match, so a made-up table earns
        nothing."""
        ablated, named = collected_choices(data, ctx.bar.factors)
        grader, departed = proofs.audited_scores(require(data, "runs", list), ctx.seeds, ["baseline", *named],
                                                 ctx.bar, ctx.seed_shown, proofs.OWN)
        if departed:
            return departed_verdict(departed, "table")
        table, tol = (data.get("table") or [None])[0], ctx.bar.tolerance
        theirs = table.get("scores") if isinstance(table, dict) else None
        if not isinstance(theirs, dict):
            return Verdict(0.0, f"{TABLE} should hold 'scores': {{setting: [score per seed]}}, as save_results writes")
        wrong = [f"{name}: your table says {theirs.get(name)}, your runs in {proofs.RUNS} on {ctx.seeds_shown()}, "
                 f"replayed by the grader, score {[round(w, 3) for w in want]}" for name, want in grader.items()
                 if not isinstance(theirs.get(name), list) or not close(theirs.get(name), want, tol)]
        form = []
        missing = [name for name in ["baseline", *ablated] if name not in theirs]
        if missing:
            form.append(f"{TABLE} has no scores for {', '.join(missing)}; it should hold the baseline and all "
                        "your ablated() details")
        summary = _plain_table(table.get("summary")) if isinstance(table.get("summary"), dict) else {}
        if not _summarizes(summary, theirs, len(ctx.seeds)):
            form.append(f"the table's summary should be the median, min and max of its own scores, per setting, "
                        f"over the {len(ctx.seeds)} seeds")
        if not wrong and not form:
            return Verdict(1.0, f"the baseline and your named factors are what your runs scored on "
                           f"{ctx.seeds_shown()}, replayed by the grader, and the summary matches the scores",
                           {"scores": grader})
        credited = len(grader) - len(wrong) + (0 if wrong else 2 - len(form))
        note = " (the table's form counts only for a table whose replayed rows all match)" if wrong else ""
        shown = "; ".join((wrong + form)[:3]) + note
        return Verdict(credited / (len(grader) + 2), shown, {"scores": grader})


def _summarizes(summary: dict, scores: dict, n_seeds: int) -> bool:
    """Whether ``summary`` is the median/min/max of ``scores``, each a list of ``n_seeds`` numbers."""
    try:
        rows = {k: [float(x) for x in v] for k, v in scores.items() if len(v) == n_seeds}
    except (TypeError, ValueError):
        return False
    return len(rows) == len(scores) and _close_table(summary, oracle.summarize(rows), 1e-9)


def _plain_table(summary: dict) -> dict:
    try:
        return _table(summary)
    except StudentError:
        return {}


class Factor(BaseModel):
    """One ablated detail in B.bar's re-run."""

    model_config = ConfigDict(extra="forbid")
    change: float = Field(description="how far flipping it moves the median of the metric")
    spread: float = Field(description="the seed spread it must beat: the larger of its and the baseline's max - min")
    matters: bool = Field(description="whether the change is beyond the spread (the chapter's bar)")


class AblationBar(Check):
    id = "B.bar"
    # its own re-runs, of settings named from the catalogue; how many of them, and from which update, did not follow
    grader_details = ("scores", "named", "factors", "seeds", "departed", "departed_update")
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = ("The chapter's bar on the grader's re-run: a factor moves the median beyond the seed spread, and you "
            "named it")
    cost, per_seed = 20.0, True
    Bar = RunBar

    class Details(Details):
        """The verdict's details (not the PPO details the project ablates): the re-run's results, or, when a run did
        not follow from the pieces, how many did not, and nothing else."""

        scores: dict[str, list[float]] | None = Field(None, description="per setting (the baseline and each ablated "
                                                      "detail), the course's metric per seed from the grader's replay")
        named: list[str] | None = Field(None, description="the details the student's conclusion names")
        factors: dict[str, Factor] | None = Field(None, description="per ablated detail, its effect against the spread")
        seeds: str | None = Field(None, description="the seeds of the re-run, as a message may name them")
        departed: int | None = Field(None, description="how many runs did not follow from the pieces")
        departed_update: int | None = Field(None, description="the update of the first run that did not follow")

        @model_validator(mode="after")
        def one_kind(self):
            """Either the re-run's four results or ``departed`` alone, as the judge writes them."""
            fields = self.model_fields_set
            if fields != {"scores", "named", "factors", "seeds"} and not {"departed"} <= fields <= DEPARTED:
                raise ValueError("expected scores, named, factors and seeds, or departed (and its first update) alone")
            return self

    def collect(self, student, ctx):
        ablated, named = choices(student, ctx.bar.factors)
        return {"runs": [proofs.recorded_runs(student, ["baseline", *ablated], ctx.seed, ctx.bar)],
                "ablated": [ablated], "named": [named]}

    def on_shard(self, data, ctx):
        """Run by the grader as soon as one seed's child returns: audit its runs now, in a process of its own."""
        proofs.start_audits(data, ctx.seeds, ctx.bar)

    def judge(self, data, ctx):
        ablated, named = collected_choices(data, ctx.bar.factors)
        scores, departed = proofs.audited_scores(require(data, "runs", list), ctx.seeds, ["baseline", *ablated],
                                                 ctx.bar, ctx.seed_shown)
        if departed:
            return departed_verdict(departed, "ablation")
        factors = [name for name in scores if name != "baseline"]
        clearing = [f for f in factors if oracle.matters(scores, f)]
        rows = {f: {"change": oracle.effect(scores, f), "spread": oracle.spread(scores, f),
                    "matters": f in clearing} for f in factors}
        details = {"scores": scores, "named": named, "factors": rows, "seeds": ctx.seeds_shown()}
        figures = "; ".join(f"{f}: median {rows[f]['change']:+.1f} vs spread {rows[f]['spread']:.1f}" for f in factors)
        failures = []
        if not clearing:
            failures.append(f"no ablated detail moves the median beyond the seed spread on {ctx.seeds_shown()} "
                            f"({figures})")
        missed = [f for f in named if f not in clearing]
        if missed:
            failures.append(f"you named {', '.join(missed)}, which does not clear the bar in the grader's re-run "
                            f"({figures})")
        return Verdict.of(failures, 2, f"{', '.join(named)} clears the bar on {ctx.seeds_shown()} ({figures})",
                          **details)
