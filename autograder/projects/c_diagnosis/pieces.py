"""Project C's checks of single diagnostics: each against the oracle on crafted data made from the seed."""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, locate, located_call, out_array, out_float
from autograder.projects.c_diagnosis import oracle
from autograder.projects.c_diagnosis.mistakes import MISTAKES
from autograder.projects.c_diagnosis.public import located as c_located
from capstone_check.located import of_kinds


def located_as(check: str, tol: float, kinds: dict, *pieces_: str) -> dict:
    """The spec's ``locate`` for diagnostics whose cases are each of one kind (``kinds``: kind -> where)."""
    return locate(check, tol, {piece: (c_located.SUBJECTS[piece], kinds) for piece in pieces_})


# ------------------------------------------------------------------------------------------------ policy diagnostics


def entropy_logits_cases(seed: int):
    """(kind, logits): ordinary rows at several scales and widths, one-hot rows (huge logits, -inf, big shifts), and
    last (drawn after the others, which stay as they were) rows whose logits lie far apart: two close logits beside one
    about a thousand below them, or -inf beside two finite ones. Only a shift by the row's largest logit keeps exp from
    overflowing there: one by the smallest gives 0 nats (or NaN) where the two close logits share the policy."""
    rng = np.random.default_rng([seed, 31])
    for A, scale in [(2, 0.3), (2, 3.0), (3, 1.0), (5, 10.0)]:
        yield "ordinary", rng.normal(0, scale, (int(rng.integers(20, 60)), A))
    one_hot = np.array([[900.0, -900.0], [-np.inf, 2.0], [0.0, -np.inf], [1e4 + 60, 1e4]])
    yield "one-hot", one_hot
    yield "shifted", rng.normal(0, 1, (30, 3)) + rng.choice([-1e3, 1e3], (30, 1))
    far = rng.normal(0, 1, (10, 3))
    far[np.arange(10), rng.integers(0, 3, 10)] -= rng.uniform(500, 1500, 10)
    yield "far apart", np.vstack([[[1000.0, 999.0, 0.0], [-np.inf, 1.0, 2.0]], far])


class Entropy(CallsCheck):
    id = "C.entropy"
    name = "Policy entropy in nats, one-hot policies included, and the logits' magnitude"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        cases = list(entropy_logits_cases(ctx.seed))
        for (kind, logits), masks in zip(cases, of_kinds([kind for kind, _ in cases])):
            label = "one-hot entropy" if kind == "one-hot" else "entropy"
            calls.append(located_call(call("policy_entropy", [logits], out_array(oracle.entropy_nats(logits), tol,
                                                                                "defined", False),
                                           f"policy_entropy ({kind} logits)", label), masks, ("policy_entropy", None)))
            finite = np.where(np.isinf(logits), 0.0, logits)
            calls.append(located_call(call("logit_magnitude", [finite], out_array(oracle.logit_magnitude(finite), tol,
                                                                                  "defined", False),
                                           f"logit_magnitude ({kind} logits)", "magnitude under a shift"
                                           if kind == "shifted" else "magnitude"), masks, ("logit_magnitude", None)))
        return {"kind": "calls", "calls": calls, "total": 4,
                "passed": "entropy in nats (one-hot rows included) and logit magnitude match",
                **located_as("C.entropy", tol, c_located.ENTROPY_KINDS, "policy_entropy", "logit_magnitude")}


def ratio_cases(seed: int):
    """(logp_new, logp_old, eps): spread ratios, an unchanged policy, none within 1e-6 of a clip boundary."""
    rng = np.random.default_rng([seed, 32])
    cases = []
    for spread, eps in [(0.05, 0.2), (0.3, 0.1), (1.0, 0.2), (0.0, 0.3), (2.0, 0.3)]:
        old = np.log(rng.uniform(0.05, 1.0, int(rng.integers(30, 80))))
        new = old + rng.normal(0, spread, len(old))
        rho = np.exp(new - old)
        near = np.abs(np.abs(rho - 1) - eps) < 1e-6
        new[near] += 1e-3
        cases.append((new, old, eps))
    return cases


class KLClip(CallsCheck):
    id = "C.kl_clip"
    name = "Approximate KL and clip fraction from old and new log-probabilities"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        cases = ratio_cases(ctx.seed)
        kinds = of_kinds(["unchanged" if np.all(new == old) else "changed" for new, old, _ in cases])
        for (new, old, eps), masks in zip(cases, kinds):
            label = "KL of an unchanged policy" if np.all(new == old) else "KL"
            kl = out_float(oracle.approx_kl(new, old), tol, "defined", False)
            calls.append(located_call(call("approx_kl", [new, old], kl, "approx_kl", label), masks,
                                      ("approx_kl", None)))
            calls.append(located_call(call("clip_fraction", [new, old, eps], out_float(
                oracle.clip_fraction(new, old, eps), tol, "defined", False), f"clip_fraction at eps = {eps}", "clip"),
                masks, ("clip_fraction", None)))
        return {"kind": "calls", "calls": calls, "total": 3,
                "passed": "approximate KL and clip fraction match, 0 for an unchanged policy",
                **located_as("C.kl_clip", tol, c_located.RATIO_KINDS, "approx_kl", "clip_fraction")}


# ------------------------------------------------------------------------------------------------ critic diagnostics


def variance_cases(seed: int):
    """(kind, values, returns): ordinary critics, a perfect one, a constant one, and constant returns."""
    rng = np.random.default_rng([seed, 33])
    for quality in (0.9, 0.3, -0.5):
        returns = rng.normal(20, 8, int(rng.integers(40, 90)))
        yield "ordinary", quality * returns + rng.normal(0, 4, len(returns)), returns
    returns = rng.normal(5, 2, 50)
    yield "perfect critic", returns.copy(), returns
    yield "constant critic", np.full(50, float(rng.normal())), returns
    yield "constant returns", rng.normal(0, 1, 40), np.full(40, 3.5)


class ExplainedVariance(CallsCheck):
    id = "C.explained_variance"
    name = "Explained variance of the critic, constant returns included"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        cases = list(variance_cases(ctx.seed))
        calls = [located_call(call("explained_variance", [v, r], out_float(oracle.explained_variance(v, r),
                                                                           ctx.bar.tolerance, "defined", False),
                                   f"explained_variance ({kind})", kind if kind == "constant returns" else "ordinary"),
                              masks, ("explained_variance", None))
                 for (kind, v, r), masks in zip(cases, of_kinds([kind for kind, _, _ in cases]))]
        return {"kind": "calls", "calls": calls, "total": 2, "passed": "matches, and is NaN for constant returns",
                **located_as(self.id, ctx.bar.tolerance, c_located.VARIANCE_KINDS, "explained_variance")}


# ---------------------------------------------------------------------------------------------- value-based diagnostics


def td_cases(seed: int):
    """(td_errors, q_taken, mc_returns, gamma): several scales and discounts, some Q beyond 1 / (1 - gamma), and in
    the second and fourth case a fifth to two fifths of the Q-values negative (an untrained network's are), so that
    mean |Q| and |mean Q| differ."""
    rng = np.random.default_rng([seed, 34])
    for i, (gamma, q_scale) in enumerate([(0.99, 30.0), (0.9, 12.0), (0.99, 140.0), (0.95, 5.0)]):
        n = int(rng.integers(30, 90))
        q = np.abs(rng.normal(q_scale, q_scale / 3, n))
        if i % 2:
            q[rng.choice(n, int(n * rng.uniform(0.2, 0.4)), replace=False)] *= -1
        yield rng.standard_t(3, n) * q_scale / 10, q, np.abs(rng.normal(q_scale * 0.8, q_scale / 4, n)), gamma


TD_KEYS, Q_KEYS = ("mean_abs", "max_abs", "relative"), ("vs_mc", "ratio_mc", "above_bound")
ABOVE_BOUND_HINT = {"above_bound": {"hint": "with reward 1 per step no return exceeds 1 / (1 - gamma)"}}


class TDAndQ(CallsCheck):
    id = "C.td_q"
    name = "TD-error statistics and Q-value overestimation against 1/(1-gamma) and Monte Carlo returns"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        cases = list(td_cases(ctx.seed))
        kinds = of_kinds(["negative Q" if (q < 0).any() else "positive Q" for _, q, _, _ in cases])
        for (td, q, g, gamma), masks in zip(cases, kinds):
            want_td, want_q = oracle.td_error_stats(td, q), oracle.q_overestimation(q, g, gamma)
            for key in TD_KEYS:
                calls.append(located_call(call("td_error_stats", [td, q], {"dict": {
                    k: out_float(want_td[k], tol, "defined", False) for k in TD_KEYS}},
                    f"td_error_stats at gamma = {gamma}", f"td_error_stats['{key}']", pick=key),
                    masks, (f"td_error_stats:{key}", key)))
            for key in Q_KEYS:
                calls.append(located_call(call("q_overestimation", [q, g, gamma],
                                               {"dict": {k: out_float(want_q[k], tol, "defined", False)
                                                         for k in Q_KEYS}},
                                               f"q_overestimation at gamma = {gamma}", f"q_overestimation['{key}']",
                                               pick=key, **ABOVE_BOUND_HINT.get(key, {})),
                                          masks, (f"q_overestimation:{key}", key)))
        return {"kind": "calls", "calls": calls, "total": 6, "passed": "TD-error statistics and overestimation match",
                **located_as("C.td_q", tol, c_located.TD_KINDS, *(f"td_error_stats:{k}" for k in TD_KEYS),
                             *(f"q_overestimation:{k}" for k in Q_KEYS))}


def curve_cases(seed: int):
    """Return curves: a rise and collapse, oscillations, NaN gaps, a peak at the end, nothing at all."""
    rng = np.random.default_rng([seed, 35])
    rise = np.linspace(10, 300, 12) + rng.normal(0, 5, 12)
    yield "ordinary", np.concatenate([rise, rng.uniform(20, 120, 8)])
    yield "ordinary", 100 + 60 * np.sin(np.arange(25) * rng.uniform(0.5, 1.5)) + rng.normal(0, 5, 25)
    gappy = rng.uniform(10, 200, 20)
    gappy[rng.choice(20, 6, replace=False)] = np.nan
    yield "with NaN gaps", gappy
    yield "peak at the end", np.append(np.sort(rng.uniform(10, 100, 10)), np.nan)
    yield "no episodes", np.full(5, np.nan)


class ReturnDrop(CallsCheck):
    id = "C.return_drop"
    name = "Return stability after the peak"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        cases = list(curve_cases(ctx.seed))
        calls = [located_call(call("return_drop", [curve], out_float(oracle.return_drop(curve), ctx.bar.tolerance,
                                                                     "defined", False),
                                   f"return_drop ({kind} curve)", "ordinary" if kind == "ordinary" else "edge"),
                              masks, ("return_drop", None))
                 for (kind, curve), masks in zip(cases, of_kinds([kind for kind, _ in cases]))]
        return {"kind": "calls", "calls": calls, "total": 2,
                "passed": "matches, gaps, a final peak and an empty curve included",
                **located_as("C.return_drop", ctx.bar.tolerance, c_located.CURVE_KINDS, "return_drop")}
