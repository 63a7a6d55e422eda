"""Project D's checks of whole training runs, written once: the chapter's loop drives the student's ``grpo_step``
with its own rng, the child hands back only each run's final theta, and the judge computes every success and hedge
probability itself. Both halves are ``autograder.projects.d_grpo.public.sweeps``'s; the sweeps run one child per seed.
"""

from __future__ import annotations

from pydantic import Field

from autograder.checks import Bar, VerdictDetails
from autograder.projects._shared.encode import encode
from autograder.projects._shared.once import WrittenOnce
from autograder.projects.d_grpo.steps import grpo_probes
from autograder.projects.d_grpo.public.sweeps import (collect_beta_sweep, collect_chapter_tables, collect_k_sweep,
                                                      judge_beta_sweep, judge_chapter_tables, judge_k_sweep)

Row = tuple[float, float, float]  # (sloppy score, exact score, hedge probability), one row of the beta table


def probes() -> list:
    """The probes of the pieces grpo_step relies on, as a spec holds them: a run that fails names the one that
    misbehaves."""
    return encode([tuple(probe) for probe in grpo_probes()])


class Sweep(WrittenOnce):
    """A sweep on fresh seeds, one child per seed: its spec is the bar, the seeds and the probes."""

    per_seed = True

    def spec(self, ctx) -> dict:
        return {"kind": self.kind, "bar": ctx.bar.model_dump(), "seeds": list(ctx.seeds), "probes": probes()}

    def inputs(self, spec: dict, ctx) -> dict:
        return spec


class ChapterTables(WrittenOnce):
    id = "D.chapter_tables"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "The chapter's K-sweep (rng seed 1) and beta table (rng seed 2), digit for digit"
    cost = 9.0

    class Bar(Bar):
        k_seed: int = Field(description="the rng seed of the chapter's K-sweep")
        budget: int = Field(description="scored responses per prompt: each K trains budget // K steps")
        k_table: dict[int, float] = Field(description="the chapter's K-sweep, K: success, matched to three decimals")
        beta_seed: int = Field(description="the rng seed of the chapter's beta table")
        beta_group: int = Field(description="the group size K of the beta table's runs")
        beta_steps: int = Field(description="steps of each of the beta table's runs")
        beta_table: dict[float, tuple[float, float, float]] = Field(description="chapter's rows: (sloppy, gold, hedge)")
        beta_tolerance: float = Field(description="largest gap from each printed entry of the beta table")

    class Details(VerdictDetails):
        ks: list[int] = Field(description="the K-sweep's group sizes, as the bar's k_table lists them")
        k_success: list[float] = Field(description="per K, the success of the student's run (rng seed k_seed)")
        k_chapter: list[float] = Field(description="per K, the success the chapter prints")
        betas: list[float] = Field(description="the beta table's KL weights, as the bar's beta_table lists them")
        beta_rows: list[Row] = Field(description="per beta, (sloppy, gold, hedge) of the student's run (beta_seed)")
        beta_chapter: list[Row] = Field(description="per beta, (sloppy, gold, hedge) as the chapter prints them")

    def spec(self, ctx) -> dict:
        bar = ctx.bar.model_dump()
        bar["k_table"] = [[int(k), float(v)] for k, v in ctx.bar.k_table.items()]
        bar["beta_table"] = [[float(b), list(v)] for b, v in ctx.bar.beta_table.items()]
        return {"kind": "d_chapter_tables", "bar": bar, "probes": probes()}

    def inputs(self, spec: dict, ctx) -> dict:
        return spec

    def gather(self, student, inputs: dict) -> dict:
        return collect_chapter_tables(student, inputs)

    def decide(self, spec: dict, data):
        return judge_chapter_tables(spec, data)


class KSweep(Sweep):
    id = "D.k_sweep"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "K-sweep on fresh seeds: K = 1 learns nothing, K >= 4 reaches the verifier's ceiling"
    cost, kind = 5.0, "d_k_sweep"

    class Bar(Bar):
        budget: int = Field(description="scored responses per prompt: each K trains budget // K steps")
        ks: list[int] = Field(description="the group sizes K trained on each seed")
        k1_tolerance: float = Field(description="largest gap of K = 1's success from no learning's (0.0624)")
        ceiling: float = Field(description="the success each K >= 4 must reach (the verifier's ceiling is 0.5)")

    class Details(VerdictDetails):
        ks: list[int] = Field(description="the group sizes K, as the bar lists them")
        success: list[list[float]] = Field(description="per seed, per K, the success of the trained policy")

    def gather(self, student, inputs: dict) -> dict:
        return collect_k_sweep(student, inputs)

    def decide(self, spec: dict, data):
        return judge_k_sweep(spec, data)


class BetaSweep(Sweep):
    id = "D.beta_sweep"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "Beta sweep on fresh seeds: the hedge wins at beta = 0 and is suppressed above 1/4"
    cost, kind = 2.5, "d_beta_sweep"  # five runs a seed

    class Bar(Bar):
        betas: list[float] = Field(description="the KL weights beta trained on each seed")
        group: int = Field(description="the group size K of each run")
        steps: int = Field(description="steps of each run")
        hedge_at_zero_min: float = Field(description="least hedge probability at beta = 0 (the loophole wins)")
        suppressed_from: float = Field(description="the beta from which the hedge must be suppressed")
        hedge_suppressed_max: float = Field(description="largest hedge probability at beta >= suppressed_from")
        growth_tolerance: float = Field(default=1e-4, ge=0, description="largest rise of the hedge probability from "
                                        "one beta to the next not counted as growing: the noise of a hedge held "
                                        "near 0")
        runs: int = Field(default=5, ge=1, le=50, description="runs per seed, each with an rng of its own; every "
                          "criterion is decided on the median of all the seeds' runs, so that no one run decides it")

    class Details(VerdictDetails):
        betas: list[float] = Field(description="the KL weights beta, as the bar lists them")
        mean_rows: list[Row] = Field(description="per beta, (sloppy, gold, hedge) averaged over the seeds")

    def gather(self, student, inputs: dict) -> dict:
        return collect_beta_sweep(student, inputs)

    def decide(self, spec: dict, data):
        return judge_beta_sweep(spec, data)
