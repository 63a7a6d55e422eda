"""Project D's checks that need no recorded value: the enumeration (the expectation over every group, from the
group probabilities recorded at release), and the sweeps, whose bars the toy's own ``success`` decides."""

from __future__ import annotations

import itertools

import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.prediction import names
from capstone_check.student import StudentError, as_array
from capstone_check.values import decode
from capstone_check.verdict import Verdict
from rlkit.toy import N_PROMPTS, N_RESPONSES, PI_REF, THETA_REF, hedge_probability, policy, sloppy, success, verify

REWARDS = {"verify": verify, "sloppy": sloppy}
REFERENCE_SUCCESS = float(success(PI_REF, verify))


WEIGHTS = {"centered": "group_centered_weight", "loo": "leave_one_out_weight"}  # the key -> the student's weight


def enumeration(student, spec: dict) -> Verdict:
    """D.enumeration, collected and judged in one process."""
    return judge_enumeration(spec, collect_enumeration(student, spec))


def collect_enumeration(student, spec: dict) -> dict:
    """The student's two weights on every group of K responses of each case's reward table (``weights``: per key,
    case and K, per prompt and group), and on each distinct reward group once (``named``: what names a mistake)."""
    fns = {key: student.fn(name) for key, name in WEIGHTS.items()}
    weights = {}
    for c, case in enumerate(spec["cases"]):
        R = decode(case["rewards"])
        for K in spec["ks"]:
            groups = list(itertools.product(range(N_RESPONSES), repeat=K))
            for key, fn in fns.items():
                weights[f"{key}/{c}/{K}"] = np.array([[as_array(fn(R[x, list(g)]), (K,), f"group_{key} weight")
                                                       for g in groups] for x in range(N_PROMPTS)])
    named = {key: [as_array(fn(np.array(r)), (len(r),), f"group_{key} weight") for r in spec["groups"]]
             for key, fn in fns.items()}
    return {"weights": weights, "named": named}


def judge_enumeration(spec: dict, collected) -> Verdict:
    """Every group of K responses weighted by the student's weights (``collected``, untrusted where another process
    sent it): the expected update must be (K-1)/K of the exact gradient for centred weights, and exactly the gradient
    for leave-one-out."""
    weights = collected.get("weights") if isinstance(collected, dict) else None
    if not isinstance(weights, dict):
        raise StudentError("the weights collected are not the enumeration's", "invalid")
    failures, tests = [], 0
    for c, case in enumerate(spec["cases"]):
        pi, g = decode(case["pi"]), decode(case["gradient"])
        for K in spec["ks"]:
            groups = np.array(list(itertools.product(range(N_RESPONSES), repeat=K)))
            chances = decode(case["chances"][str(K)])  # (prompt, group): how likely each group is
            for key, factor, what in (("centered", (K - 1) / K, f"(K-1)/K = {(K - 1) / K:.3f} of"),
                                      ("loo", 1.0, "exactly")):
                tests += 1
                w = np.asarray(weights[f"{key}/{c}/{K}"], dtype=float)
                if w.shape != (N_PROMPTS, len(groups), K):
                    raise StudentError(f"{key} weights for K = {K}: expected shape {(N_PROMPTS, len(groups), K)}, "
                                       f"found {w.shape}", "invalid")
                u = np.stack([_expected(pi[x], groups, w[x], chances[x]) for x in range(N_PROMPTS)])
                error = np.abs(u - factor * g).max()
                if not error <= spec["tol"] * max(1.0, np.abs(g).max()):
                    ratio = float((u * g).sum() / (g * g).sum())
                    failures.append(f"{key} weights, K = {K}, {case['label']}: the expected update should be {what} "
                                    f"the exact gradient; it is {ratio:.4f} of it (max |error| {error:.2e})")
    return with_findings(Verdict.of(failures, tests, "the expected updates match (K-1)/K and 1 times the exact "
                                    "gradient"), spec, _weight_mistakes(spec, collected) if failures else [])


def _weight_mistakes(spec: dict, collected: dict) -> list[str]:
    """The recorded mistakes of either weight whose weights of every enumerated reward group (``spec["groups"]``,
    each once) are the student's."""
    named = collected.get("named")
    if not isinstance(named, dict):
        return []
    return [mid for key in WEIGHTS if isinstance(named.get(key), list) and len(named[key]) == len(spec["groups"])
            for mid in recognised(spec, named[key], spec["mistakes_of"].get(key, []))]


def _expected(pi_x, groups, w, chance):
    """sum over groups of chance(g) * mean_k w_k (e_{y_k} - pi_x)."""
    scores = np.eye(len(pi_x))[groups] - pi_x
    return np.einsum("g,gk,gkv->v", chance, w, scores) / groups.shape[1]


def train(student, K: int, reward: str, seed: int, steps: int, beta: float = 0.0) -> np.ndarray:
    """The chapter's loop around the student's step: theta_ref, one rng per run, ``steps`` updates."""
    step, rng, theta = student.fn("grpo_step"), np.random.default_rng(seed), THETA_REF.copy()
    for _ in range(steps):
        theta = step(theta, K, REWARDS[reward], rng, beta=beta, lr=2.0, epochs=1)
        if not (isinstance(theta, np.ndarray) and theta.shape == THETA_REF.shape):
            as_array(theta, THETA_REF.shape, f"grpo_step (K = {K})")
    return as_array(theta, THETA_REF.shape, f"theta after {steps} steps of grpo_step (K = {K})")


def frontier(theta) -> list[float]:
    pi = policy(theta)
    return [float(success(pi, sloppy)), float(success(pi, verify)), float(hedge_probability(pi))]


def chapter_tables(student, spec: dict) -> Verdict:
    bar, failures = spec["bar"], []
    k_rows = [float(success(policy(train(student, K, "verify", bar["k_seed"], bar["budget"] // K)), verify))
              for K, _ in bar["k_table"]]
    beta_rows = [frontier(train(student, bar["beta_group"], "sloppy", bar["beta_seed"], bar["beta_steps"], beta))
                 for beta, _ in bar["beta_table"]]
    for (K, printed), got in zip(bar["k_table"], k_rows):
        if f"{got:.3f}" != f"{printed:.3f}":
            failures.append(f"K = {K}: success {got:.3f}, the chapter prints {printed:.3f}")
    for (beta, printed), got in zip(bar["beta_table"], beta_rows):
        if not np.all(np.abs(np.array(got) - printed) <= bar["beta_tolerance"] + 1e-12):
            failures.append(f"beta = {beta}: (sloppy, gold, hedge) = ({got[0]:.2f}, {got[1]:.2f}, {got[2]:.2f}), "
                            f"the chapter prints ({printed[0]:.2f}, {printed[1]:.2f}, {printed[2]:.2f})")
    return Verdict.of(failures, len(k_rows) + len(beta_rows), "both tables reproduced")


def _runs(values) -> str:
    return ", ".join(f"{v:.4f}" for v in np.asarray(values))


def k_sweep_row(student, spec: dict, seed: int) -> list[float]:
    """One seed's runs of the K-sweep: the success of each K's final policy."""
    bar = spec["bar"]
    return [float(success(policy(train(student, K, "verify", seed, bar["budget"] // K)), verify)) for K in bar["ks"]]


def k_sweep(student, spec: dict) -> Verdict:
    return k_sweep_verdict(spec, [k_sweep_row(student, spec, seed) for seed in spec["seeds"]])


def k_sweep_verdict(spec: dict, rows: list) -> Verdict:
    bar, failures, table = spec["bar"], [], np.array(rows)
    for j, K in enumerate(bar["ks"]):
        column = table[:, j]
        if K == 1 and not np.all(np.abs(column - REFERENCE_SUCCESS) <= bar["k1_tolerance"]):
            failures.append(f"K = 1 should not learn (a group of one has zero standardized weight): success should "
                            f"stay at the reference {REFERENCE_SUCCESS:.4f}, measured {_runs(column)}")
        if K >= 4 and not np.all(column >= bar["ceiling"]):
            failures.append(f"K = {K} should reach the verifier's ceiling 0.5 (at least {bar['ceiling']}) within "
                            f"{bar['budget']} scored responses per prompt; measured {_runs(column)}")
    return Verdict.of(failures, len(bar["ks"]), f"K = 1 stays at {REFERENCE_SUCCESS:.4f}; K >= 4 reaches 0.5 on all "
                      f"{len(table)} runs")


def beta_sweep_row(student, spec: dict, seed: int) -> list:
    """One seed's runs of the beta sweep: (sloppy, gold, hedge) of each beta's final policy."""
    bar = spec["bar"]
    return [frontier(train(student, bar["group"], "sloppy", seed, bar["steps"], beta)) for beta in bar["betas"]]


def beta_sweep(student, spec: dict) -> Verdict:
    return beta_sweep_verdict(spec, [beta_sweep_row(student, spec, seed) for seed in spec["seeds"]])


def beta_sweep_verdict(spec: dict, rows: list) -> Verdict:
    bar, rows = spec["bar"], np.array(rows)
    criteria = beta_criteria(bar, rows[:, :, 2])
    failures = [failure for failed, _, failure in criteria.values() if failed]
    narrow = [name for name, (failed, margins, _) in criteria.items() if not failed and within_the_spread(margins)]
    passed = 3 - len(failures)
    spread = [(passed - len(narrow)) / 3, passed / 3] if narrow else None
    note = narrow_note(spec, spread, narrow) if narrow else ""
    verdict = Verdict.of(failures, 3, "the hedge wins at beta = 0 and is suppressed above 1/4", note=note)
    if narrow and not failures:
        verdict.message = f"{verdict.message}; {note}"
    verdict.spread = spread
    return verdict


def beta_criteria(bar: dict, hedge: np.ndarray) -> dict[str, tuple[bool, np.ndarray, str]]:
    """Each criterion of the sweep the bar sets, by name: whether it fails, by how much each seed's runs pass it
    (below 0 where they fail) and what its failure says."""
    betas, out = np.array(bar["betas"]), {}
    if 0.0 in bar["betas"]:
        at_zero = hedge[:, bar["betas"].index(0.0)]
        out["the loophole winning at beta = 0"] = (
            not np.all(at_zero >= bar["hedge_at_zero_min"]), at_zero - bar["hedge_at_zero_min"],
            f"at beta = 0 the loophole should win (hedge >= {bar['hedge_at_zero_min']}); measured {_runs(at_zero)}")
    high = hedge[:, betas >= bar["suppressed_from"]]
    if high.size:
        out[f"the hedge suppressed from beta = {bar['suppressed_from']:g}"] = (
            not np.all(high <= bar["hedge_suppressed_max"]), bar["hedge_suppressed_max"] - high.max(1),
            f"above the threshold 1/4 (beta >= {bar['suppressed_from']}) the hedge should be at most "
            f"{bar['hedge_suppressed_max']}; measured up to {high.max():.3f}")
    if len(betas) > 1:
        grows = np.diff(hedge, axis=1) - bar["growth_tolerance"]  # a rise within the tolerance is noise, not growth
        out["the hedge not growing with beta"] = (
            bool(np.any(grows > 0)), -grows.max(1), "the hedge probability should not grow with beta (by more than "
            f"{bar['growth_tolerance']:g}); it did on {int(np.any(grows > 0, axis=1).sum())} of {len(hedge)} runs")
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
