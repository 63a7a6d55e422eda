"""Project B's B.bar: the chapter's bar on the grader's own runs of the chosen settings on the grading seeds, which a
submission's runs are when its pieces make the reference's updates: the folder's pieces make a secret sample of each
run's updates again (``bar_runs``), and a run whose sample they do not make scores the row 0."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from autograder.checks import Check, Verdict, VerdictDetails, require
from autograder.projects._shared.ppo.recording import ReplayBar
from autograder.departures import Departure, departed_message, departed_update
from autograder.projects.b_ablations import bar_runs, oracle
from autograder.projects.b_ablations.choices import choices, collected_choices


NOT_CREDITED = "Not credited: your pieces did not make the updates of the grader's runs as the reference's did."
NEXT_STEP = ("If your pieces pass their checks, look for what training hands them that the checks do not: a detail "
             "switched on, a longer batch, a later update.")


class RunBar(ReplayBar):
    factors: int = Field(description="how many details a student ablates")
    remade_updates: int = Field(ge=1, description="updates of each run the folder's pieces make again: the first "
                                "and others drawn from the course secret, the seed and the setting")


DEPARTED = {"departed", "departed_update"}  # B.bar's details when a run did not follow from the pieces


def departed_verdict(departed: list[tuple[str, Departure]], runs: int, verdict: str, step: str) -> Verdict:
    """Score 0: ``departed`` of the ``runs`` runs did not follow from the student's pieces."""
    first = next((u for u in (departed_update(found) for _, found in departed) if u is not None), None)
    return Verdict(0.0, departed_message(verdict, step, departed, runs),
                   {"departed": len(departed), "departed_update": first})


class Factor(BaseModel):
    """One ablated detail in B.bar's runs."""

    model_config = ConfigDict(extra="forbid")
    change: float = Field(description="how far flipping it moves the median of the metric")
    spread: float = Field(description="the seed spread it must beat: the larger of its and the baseline's max - min")
    matters: bool = Field(description="whether the change is beyond the spread (the chapter's bar)")


class AblationBar(Check):
    id = "B.bar"
    builds_on = ("B.defaults", "B.switches")  # the training pieces that must make the runs' updates
    # the grader's runs, of settings named from the catalogue; how many of them, and from which update, the pieces did
    # not make
    grader_details = ("scores", "named", "factors", "seeds", "departed", "departed_update")
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = ("The chapter's bar on the grader's runs: a factor moves the median beyond the seed spread, and you "
            "named it")
    cost, per_seed = 4.0, True  # the child's sampled updates; the grader's runs are trained once, before it
    Bar = RunBar

    class Details(VerdictDetails):
        """The verdict's details (not the PPO details the project ablates): the runs' results, or, when a run did
        not follow from the pieces, how many did not, and nothing else."""

        scores: dict[str, list[float]] | None = Field(None, description="per setting (the baseline and each ablated "
                                                      "detail), the course's metric per seed of the grader's run")
        named: list[str] | None = Field(None, description="the details the student's conclusion names")
        factors: dict[str, Factor] | None = Field(None, description="per ablated detail, its effect against the spread")
        seeds: str | None = Field(None, description="the seeds of the runs, as a message may name them")
        departed: int | None = Field(None, description="how many runs' sampled updates the pieces did not make")
        departed_update: int | None = Field(None, description="the first such run's first update not made")

        @model_validator(mode="after")
        def one_kind(self):
            """Either the runs' four results or ``departed`` alone, as the judge writes them."""
            fields = self.model_fields_set
            if fields != {"scores", "named", "factors", "seeds"} and not {"departed"} <= fields <= DEPARTED:
                raise ValueError("expected scores, named, factors and seeds, or departed (and its first update) alone")
            return self

    def key_for(self, folder, secret):
        """In the grader, as the check is planned: the key the samples are drawn from (``bar_runs.sample_key``)."""
        return bar_runs.sample_key(secret)

    def prepare(self, ctx) -> str:
        """Grader side, before the child starts: the states before the sampled updates of this seed's runs, trained
        where no student code runs (once per course and machine)."""
        return bar_runs.child_inputs(ctx.seed, ctx.bar, ctx.key)

    def collect(self, student, ctx):
        ablated, named = choices(student, ctx.bar.factors)
        return {"made": [bar_runs.remade(student, ctx.inputs, ["baseline", *ablated], ctx.seed, ctx.bar)],
                "ablated": [ablated], "named": [named]}

    def judge(self, data, ctx):
        ablated, named = collected_choices(data, ctx.bar.factors)
        scores, departed = bar_runs.scored(require(data, "made", list), ctx, ["baseline", *ablated])
        if departed:
            return departed_verdict(departed, sum(map(len, scores.values())), NOT_CREDITED, NEXT_STEP)
        factors = [name for name in scores if name != "baseline"]
        clearing = [f for f in factors if oracle.matters(scores, f)]
        rows = {f: {"change": oracle.effect(scores, f), "spread": oracle.spread(scores, f),
                    "matters": f in clearing} for f in factors}
        details = {"scores": scores, "named": named, "factors": rows, "seeds": ctx.seeds_shown()}
        figures = "median change vs seed spread: " + ", ".join(
            f"{f} {rows[f]['change']:+.1f} vs {rows[f]['spread']:.1f}" for f in factors)
        failures = []
        if not clearing:
            failures.append(f"no ablated detail moves the median beyond the seed spread on {ctx.seeds_shown()} "
                            f"({figures})")
        missed = [f for f in named if f not in clearing]
        if missed:
            failures.append(f"you named {', '.join(missed)}, which does not clear the bar in the grader's runs "
                            f"({figures})")
        return Verdict.of(failures, 2, f"{', '.join(named)} clears the bar on {ctx.seeds_shown()} ({figures})",
                          **details)
