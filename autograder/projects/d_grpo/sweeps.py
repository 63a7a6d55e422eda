"""Project D's checks of whole training runs: the grader drives the student's ``grpo_step`` with its own rng and
loop, receives only the final theta of each run, and computes every success and hedge probability itself.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Bar, Check, VerdictDetails, Malformed, Verdict, pairs

from autograder.comparisons import apart, below, beyond, numbers
from capstone_check.cascade import explained
from autograder.projects.d_grpo.pieces import REWARDS
from autograder.projects.d_grpo.steps import grpo_probes
from capstone_check.student import as_array, describe
from rlkit.toy import PI_REF, THETA_REF, hedge_probability, policy, sloppy, success, verify


CHAPTER_STEP = {"lr": 2.0, "epochs": 1}  # the chapter's group_step: one ascent step of size 2 per group


def train(student, K: int, reward: str, seed: int, steps: int, beta: float = 0.0) -> np.ndarray:
    """The chapter's loop around the student's step (theta_ref, one rng per run, ``steps`` updates); a failure names
    the piece of grpo_step that misbehaves, when one does."""
    return explained(student, "grpo_step", lambda: run(student, K, reward, seed, steps, beta), grpo_probes())


def run(student, K: int, reward: str, seed: int, steps: int, beta: float) -> np.ndarray:
    step, rng, theta = student.fn("grpo_step"), np.random.default_rng(seed), THETA_REF.copy()
    for _ in range(steps):
        theta = step(theta, K, REWARDS[reward], rng, beta=beta, **CHAPTER_STEP)
        if not (isinstance(theta, np.ndarray) and theta.shape == THETA_REF.shape):
            as_array(theta, THETA_REF.shape, f"grpo_step (K = {K})")
    return as_array(theta, THETA_REF.shape, f"theta after {steps} steps of grpo_step (K = {K})")


def thetas(theta) -> np.ndarray:
    """A final theta from the child, of the toy's shape and finite."""
    array = numbers(theta)
    if array is None or array.shape != THETA_REF.shape:
        raise Malformed(f"a final theta of finite numbers of shape {THETA_REF.shape}, found {describe(theta)}")
    return array


def runs(data, ctx, settings) -> list:
    """data['theta'] as one list of final thetas per seed, one theta per setting."""
    got = data["theta"]
    if not isinstance(got, list) or len(got) != len(ctx.seeds) or any(len(run) != len(settings) for run in got):
        raise Malformed(f"expected {len(settings)} final thetas for each of {len(ctx.seeds)} seeds")
    return got


def frontier(theta) -> tuple[float, float, float]:
    """(sloppy score, exact score, hedge probability): one row of the chapter's beta table."""
    pi = policy(thetas(theta))
    return float(success(pi, sloppy)), float(success(pi, verify)), float(hedge_probability(pi))


REFERENCE_SUCCESS = float(success(PI_REF, verify))  # 0.0624: what "no learning" leaves
Row = tuple[float, float, float]  # (sloppy score, exact score, hedge probability), as ``frontier`` gives it


class ChapterTables(Check):
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

    def collect(self, student, ctx):
        bar = ctx.bar
        return {"k": [train(student, K, "verify", bar.k_seed, bar.budget // K) for K in bar.k_table],
                "beta": [train(student, bar.beta_group, "sloppy", bar.beta_seed, bar.beta_steps, beta=beta)
                         for beta in bar.beta_table]}

    def judge(self, data, ctx):
        bar, failures = ctx.bar, []
        k_rows = [float(success(policy(thetas(t)), verify)) for t in data["k"]]
        for (K, printed), got in pairs(bar.k_table.items(), k_rows, "rows of the K table"):
            if f"{got:.3f}" != f"{printed:.3f}":
                failures.append(f"K = {K}: success {got:.3f}, the chapter prints {printed:.3f}")
        beta_rows = [frontier(t) for t in data["beta"]]
        for (beta, printed), got in pairs(bar.beta_table.items(), beta_rows, "rows of the beta table"):
            if apart(got, printed, bar.beta_tolerance + 1e-12):
                failures.append(f"beta = {beta}: (sloppy, gold, hedge) = ({got[0]:.2f}, {got[1]:.2f}, {got[2]:.2f}), "
                                f"the chapter prints ({printed[0]:.2f}, {printed[1]:.2f}, {printed[2]:.2f})")
        details = {"ks": list(bar.k_table), "k_success": k_rows, "k_chapter": list(bar.k_table.values()),
                   "betas": list(bar.beta_table), "beta_rows": beta_rows,
                   "beta_chapter": [list(v) for v in bar.beta_table.values()]}
        return Verdict.of(failures, len(k_rows) + len(beta_rows), "both tables reproduced", **details)


class KSweep(Check):
    id = "D.k_sweep"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "K-sweep on fresh seeds: K = 1 learns nothing, K >= 4 reaches the verifier's ceiling"
    cost, per_seed = 5.0, True

    class Bar(Bar):
        budget: int = Field(description="scored responses per prompt: each K trains budget // K steps")
        ks: list[int] = Field(description="the group sizes K trained on each seed")
        k1_tolerance: float = Field(description="largest gap of K = 1's success from no learning's (0.0624)")
        ceiling: float = Field(description="the success each K >= 4 must reach (the verifier's ceiling is 0.5)")

    class Details(VerdictDetails):
        ks: list[int] = Field(description="the group sizes K, as the bar lists them")
        success: list[list[float]] = Field(description="per seed, per K, the success of the trained policy")

    def collect(self, student, ctx):
        return {"theta": [[train(student, K, "verify", seed, ctx.bar.budget // K) for K in ctx.bar.ks]
                          for seed in ctx.seeds]}

    def judge(self, data, ctx):
        bar, failures = ctx.bar, []
        table = np.array([[success(policy(thetas(t)), verify) for t in run] for run in runs(data, ctx, bar.ks)])
        for j, K in enumerate(bar.ks):
            column = table[:, j]
            if K == 1 and beyond(np.abs(column - REFERENCE_SUCCESS), bar.k1_tolerance):
                failures.append(f"K = 1 should not learn (a group of one has zero standardized weight): success "
                                f"should stay at the reference {REFERENCE_SUCCESS:.4f}, measured {fmt_runs(column)}")
            if K >= 4 and below(column, bar.ceiling):
                failures.append(f"K = {K} should reach the verifier's ceiling 0.5 (at least {bar.ceiling}) within "
                                f"{bar.budget} scored responses per prompt; measured {fmt_runs(column)}")
        return Verdict.of(failures, len(bar.ks), f"K = 1 stays at {REFERENCE_SUCCESS:.4f}; K >= 4 reaches 0.5 "
                          f"on all {len(table)} runs", ks=bar.ks, success=table.tolist())


class BetaSweep(Check):
    id = "D.beta_sweep"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "Beta sweep on fresh seeds: the hedge wins at beta = 0 and is suppressed above 1/4"
    cost, per_seed = 1.5, True

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

    class Details(VerdictDetails):
        betas: list[float] = Field(description="the KL weights beta, as the bar lists them")
        mean_rows: list[Row] = Field(description="per beta, (sloppy, gold, hedge) averaged over the seeds")

    def collect(self, student, ctx):
        bar = ctx.bar
        return {"theta": [[train(student, bar.group, "sloppy", seed, bar.steps, beta=beta) for beta in bar.betas]
                          for seed in ctx.seeds]}

    def judge(self, data, ctx):
        bar, failures = ctx.bar, []
        rows = np.array([[frontier(t) for t in run] for run in runs(data, ctx, bar.betas)])  # (seeds, betas, 3)
        hedge = rows[:, :, 2]
        betas = np.array(bar.betas)
        if 0.0 in bar.betas and below(hedge[:, bar.betas.index(0.0)], bar.hedge_at_zero_min):
            failures.append(f"at beta = 0 the loophole should win (hedge >= {bar.hedge_at_zero_min}); "
                            f"measured {fmt_runs(hedge[:, bar.betas.index(0.0)])}")
        high = betas >= bar.suppressed_from
        if beyond(hedge[:, high], bar.hedge_suppressed_max):
            failures.append(f"above the threshold 1/4 (beta >= {bar.suppressed_from}) the hedge should be at most "
                            f"{bar.hedge_suppressed_max}; measured up to {hedge[:, high].max():.3f}")
        grows = np.diff(hedge, axis=1) > bar.growth_tolerance
        if np.any(grows):
            failures.append(f"the hedge probability should not grow with beta (by more than {bar.growth_tolerance:g}); "
                            f"it did on {int(np.any(grows, axis=1).sum())} of {len(hedge)} runs")
        return Verdict.of(failures, 3, "the hedge wins at beta = 0 and is suppressed above 1/4",
                          betas=bar.betas, mean_rows=rows.mean(0).tolist())


def fmt_runs(values) -> str:
    return ", ".join(f"{v:.4f}" for v in np.asarray(values))
