"""Project D's training checks in both halves: the chapter's loop around the student's step, which hands back only
each run's final theta (``collect_*``, in the process that runs the student's code), and what the toy's own
``success`` and hedge probability make of those thetas (``judge_*``). Final grading runs the same halves, one child per
seed for the sweeps (``autograder.projects.d_grpo.sweeps``); the students' checker runs them on the public seeds,
the ``_row`` and ``_verdict`` functions serving its children per seed.
"""

from __future__ import annotations

import numpy as np

from capstone_check.cascade import Probe, explained
from capstone_check.student import StudentError, as_array
from capstone_check.values import decode
from capstone_check.verdict import Verdict, names
from rlkit.toy import PI_REF, THETA_REF, hedge_probability, policy, sloppy, success, verify

REWARDS = {"verify": verify, "sloppy": sloppy}
REFERENCE_SUCCESS = float(success(PI_REF, verify))  # 0.0624: what "no learning" leaves
CHAPTER_STEP = {"lr": 2.0, "epochs": 1}  # the chapter's group_step: one ascent step of size 2 per group


def train(student, spec: dict, K: int, reward: str, seed: int, steps: int, beta: float = 0.0) -> list:
    """The chapter's loop around the student's step (theta_ref, one rng per run, ``steps`` updates): the final theta;
    a failure names the piece of grpo_step that misbehaves on the spec's ``probes``, when one does."""
    def run():
        step, rng, theta = student.fn("grpo_step"), np.random.default_rng(seed), THETA_REF.copy()
        for _ in range(steps):
            theta = step(theta, K, REWARDS[reward], rng, beta=beta, **CHAPTER_STEP)
            if not (isinstance(theta, np.ndarray) and theta.shape == THETA_REF.shape):
                as_array(theta, THETA_REF.shape, f"grpo_step (K = {K})")
        return as_array(theta, THETA_REF.shape, f"theta after {steps} steps of grpo_step (K = {K})")

    probes = [Probe(*probe) for probe in decode(spec.get("probes", []))]
    return explained(student, "grpo_step", run, probes).tolist()


def final_theta(theta) -> np.ndarray:
    """A final theta as collected (untrusted where another process sent it): finite numbers of the toy's shape."""
    try:
        return as_array(theta, THETA_REF.shape, "a final theta")
    except StudentError:
        raise StudentError(f"a final theta of finite numbers of shape {THETA_REF.shape} was not collected",
                           "invalid") from None


def frontier(theta) -> list[float]:
    """(sloppy score, exact score, hedge probability): one row of the chapter's beta table."""
    pi = policy(final_theta(theta))
    return [float(success(pi, sloppy)), float(success(pi, verify)), float(hedge_probability(pi))]


def seeds_of(collected, spec: dict, key: str, width: int) -> list:
    """``collected[key]``: one list of ``width`` final thetas per seed of the spec."""
    runs = collected.get(key) if isinstance(collected, dict) else None
    if not isinstance(runs, list) or len(runs) != len(spec["seeds"]) or any(
            not isinstance(run, list) or len(run) != width for run in runs):
        raise StudentError(f"expected {width} final thetas for each of {len(spec['seeds'])} seeds", "invalid")
    return runs


def _runs(values) -> str:
    return ", ".join(f"{v:.4f}" for v in np.asarray(values))


# ------------------------------------------------------------------------------------------------ the chapter's tables


def chapter_tables(student, spec: dict) -> Verdict:
    """D.chapter_tables, collected and judged in one process."""
    return judge_chapter_tables(spec, collect_chapter_tables(student, spec))


def collect_chapter_tables(student, spec: dict) -> dict:
    bar = spec["bar"]
    return {"k": [train(student, spec, K, "verify", bar["k_seed"], bar["budget"] // K) for K, _ in bar["k_table"]],
            "beta": [train(student, spec, bar["beta_group"], "sloppy", bar["beta_seed"], bar["beta_steps"], beta)
                     for beta, _ in bar["beta_table"]]}


def judge_chapter_tables(spec: dict, collected) -> Verdict:
    """The K-sweep's successes to three decimals and the beta table's rows within the bar's tolerance."""
    bar, failures = spec["bar"], []
    k, beta = (collected.get(key) if isinstance(collected, dict) else None for key in ("k", "beta"))
    if not (isinstance(k, list) and len(k) == len(bar["k_table"]) and isinstance(beta, list)
            and len(beta) == len(bar["beta_table"])):
        raise StudentError("the chapter's runs collected are not one per row of its tables", "invalid")
    k_rows = [float(success(policy(final_theta(t)), verify)) for t in k]
    beta_rows = [frontier(t) for t in beta]
    for (K, printed), got in zip(bar["k_table"], k_rows):
        if f"{got:.3f}" != f"{printed:.3f}":
            failures.append(f"K = {K}: success {got:.3f}, the chapter prints {printed:.3f}")
    for (b, printed), got in zip(bar["beta_table"], beta_rows):
        if not np.all(np.abs(np.array(got) - printed) <= bar["beta_tolerance"] + 1e-12):
            failures.append(f"beta = {b}: (sloppy, gold, hedge) = ({got[0]:.2f}, {got[1]:.2f}, {got[2]:.2f}), "
                            f"the chapter prints ({printed[0]:.2f}, {printed[1]:.2f}, {printed[2]:.2f})")
    details = {"ks": [K for K, _ in bar["k_table"]], "k_success": k_rows, "k_chapter": [v for _, v in bar["k_table"]],
               "betas": [b for b, _ in bar["beta_table"]], "beta_rows": beta_rows,
               "beta_chapter": [list(v) for _, v in bar["beta_table"]]}
    return Verdict.of(failures, len(k_rows) + len(beta_rows), "both tables reproduced", **details)


# ------------------------------------------------------------------------------------------------ the K-sweep


def k_sweep_row(student, spec: dict, seed: int) -> list:
    """One seed's runs of the K-sweep: each K's final theta."""
    bar = spec["bar"]
    return [train(student, spec, K, "verify", seed, bar["budget"] // K) for K in bar["ks"]]


def collect_k_sweep(student, spec: dict) -> dict:
    return {"theta": [k_sweep_row(student, spec, seed) for seed in spec["seeds"]]}


def k_sweep(student, spec: dict) -> Verdict:
    return judge_k_sweep(spec, collect_k_sweep(student, spec))


def k_sweep_verdict(spec: dict, rows: list) -> Verdict:
    """The students' checker's verdict on its children's rows, one per public seed."""
    return judge_k_sweep(spec, {"theta": rows})


def judge_k_sweep(spec: dict, collected) -> Verdict:
    bar, failures = spec["bar"], []
    table = np.array([[success(policy(final_theta(t)), verify) for t in run]
                      for run in seeds_of(collected, spec, "theta", len(bar["ks"]))])
    for j, K in enumerate(bar["ks"]):
        column = table[:, j]
        if K == 1 and not np.all(np.abs(column - REFERENCE_SUCCESS) <= bar["k1_tolerance"]):
            failures.append(f"K = 1 should not learn (a group of one has zero standardized weight): success should "
                            f"stay at the reference {REFERENCE_SUCCESS:.4f}, measured {_runs(column)}")
        if K >= 4 and not np.all(column >= bar["ceiling"]):
            failures.append(f"K = {K} should reach the verifier's ceiling 0.5 (at least {bar['ceiling']}) within "
                            f"{bar['budget']} scored responses per prompt; measured {_runs(column)}")
    return Verdict.of(failures, len(bar["ks"]), f"K = 1 stays at {REFERENCE_SUCCESS:.4f}; K >= 4 reaches 0.5 on all "
                      f"{len(table)} runs", ks=list(bar["ks"]), success=table.tolist())


# ------------------------------------------------------------------------------------------------ the beta sweep


def run_seeds(seed: int, runs: int) -> list:
    """A seed's runs of the beta sweep, each with an rng of its own: the seed itself, then ``[seed, 1]``, ... (numpy's
    seed sequences, so no two seeds' runs share an rng)."""
    return [seed, *([seed, run] for run in range(1, runs))]


def beta_sweep_row(student, spec: dict, seed: int) -> list:
    """One seed's runs of the beta sweep: per run, each beta's final theta."""
    bar = spec["bar"]
    return [[train(student, spec, bar["group"], "sloppy", run, bar["steps"], beta) for beta in bar["betas"]]
            for run in run_seeds(seed, bar["runs"])]


def collect_beta_sweep(student, spec: dict) -> dict:
    return {"theta": [beta_sweep_row(student, spec, seed) for seed in spec["seeds"]]}


def beta_sweep(student, spec: dict) -> Verdict:
    return judge_beta_sweep(spec, collect_beta_sweep(student, spec))


def beta_sweep_verdict(spec: dict, rows: list) -> Verdict:
    """The students' checker's verdict on its children's rows, one per public seed."""
    return judge_beta_sweep(spec, {"theta": rows})


def judge_beta_sweep(spec: dict, collected) -> Verdict:
    bar = spec["bar"]
    runs, width = bar["runs"], len(bar["betas"])
    seeds = seeds_of(collected, spec, "theta", runs)
    if any(not isinstance(run, list) or len(run) != width for seed in seeds for run in seed):
        raise StudentError(f"expected {width} final thetas for each of {runs} runs of each seed", "invalid")
    return beta_rows_verdict(spec, [[[frontier(theta) for theta in run] for run in seed] for seed in seeds])


def beta_rows_verdict(spec: dict, rows: list) -> Verdict:
    """The sweep's three criteria on its (sloppy, gold, hedge) rows, per seed, run and beta. Where one passes by less
    than the seeds differ by, what final grading's seeds may give is said beside the row (``aside``, ``spread``)."""
    bar, rows = spec["bar"], np.array(rows, dtype=float)
    criteria = beta_criteria(bar, rows[..., 2])
    failures = [failure for failed, _, failure in criteria.values() if failed]
    narrow = [name for name, (failed, margins, _) in criteria.items() if not failed and within_the_spread(margins)]
    passed = 3 - len(failures)
    verdict = Verdict.of(failures, 3, "the hedge wins at beta = 0 and is suppressed above 1/4",
                         betas=list(bar["betas"]), mean_rows=rows.mean((0, 1)).tolist())
    if narrow:
        verdict.spread = [(passed - len(narrow)) / 3, passed / 3]
        verdict.aside = narrow_note(spec, verdict.spread, narrow) if "points" in spec else ""  # the checker's spec
    return verdict


def beta_criteria(bar: dict, hedge: np.ndarray) -> dict[str, tuple[bool, np.ndarray, str]]:
    """Each criterion of the sweep the bar sets, by name: whether it fails, by how much each seed's median run passes
    it (below 0 where it fails) and what its failure says. A criterion is decided on the median run of all the seeds'
    runs (``hedge``: seed, run, beta), so that no one run, and no one draw of seeds, decides it: a wrong step whose
    runs settle one way or the other by chance is graded by where most of them settle."""
    betas, out = np.array(bar["betas"]), {}
    typical = np.median(hedge.reshape(-1, len(betas)), axis=0)  # the median run, beta by beta
    per_seed = np.median(hedge, axis=1)  # each seed's median run: how far apart the seeds are
    runs = f"the median of {hedge.shape[0] * hedge.shape[1]} runs"
    if 0.0 in bar["betas"]:
        zero = bar["betas"].index(0.0)
        out["the loophole winning at beta = 0"] = (
            not typical[zero] >= bar["hedge_at_zero_min"], per_seed[:, zero] - bar["hedge_at_zero_min"],
            f"at beta = 0 the loophole should win (hedge >= {bar['hedge_at_zero_min']}); {runs} is "
            f"{typical[zero]:.4f}")
    high = betas >= bar["suppressed_from"]
    if high.any():
        out[f"the hedge suppressed from beta = {bar['suppressed_from']:g}"] = (
            not np.all(typical[high] <= bar["hedge_suppressed_max"]),
            bar["hedge_suppressed_max"] - per_seed[:, high].max(1),
            f"above the threshold 1/4 (beta >= {bar['suppressed_from']}) the hedge should be at most "
            f"{bar['hedge_suppressed_max']}; {runs} reaches {typical[high].max():.3f}")
    if len(betas) > 1:
        tol = bar["growth_tolerance"]  # a rise within the tolerance is noise, not growth
        rises = np.diff(typical) - tol
        out["the hedge not growing with beta"] = (
            bool(np.any(rises > 0)), -(np.diff(per_seed, axis=1) - tol).max(1),
            f"the hedge probability should not grow with beta (by more than {tol:g}); {runs} grew "
            + ", ".join(f"from beta = {betas[i]:g} to {betas[i + 1]:g}" for i in np.flatnonzero(rises > 0)))
    return out


def within_the_spread(margins: np.ndarray) -> bool:
    """Whether the public seeds pass a criterion by less than they differ by among themselves (the smallest margin
    below the margins' range), so that another seed's runs may fail it."""
    margins = np.asarray(margins, dtype=float)
    return bool(np.all(np.isfinite(margins)) and margins.min() < np.ptp(margins))


def narrow_note(spec: dict, spread: list[float], narrow: list[str]) -> str:
    """The row's prediction where a criterion passes here by less than the public seeds differ by, said first."""
    low, high = (round(spec["points"] * share, 2) for share in spread)
    one = len(narrow) == 1
    return (f"Predicted {low:g}/{spec['points']:g}, or up to {high:g}: {names(narrow)} hold{'s' * one} on every "
            f"public seed by less than they differ by; other seeds may break {'it' if one else 'them'}")
