"""Project C's checks of single diagnostics: each against the oracle on crafted data made from the seed."""

from __future__ import annotations

import numpy as np

from autograder.checks import Check, ToleranceBar, Verdict, pairs
from autograder.comparisons import close_where_defined, difference
from autograder.findings import matched, of_piece
from autograder.projects.c_diagnosis import oracle
from autograder.projects.c_diagnosis.mistakes import MISTAKES
from capstone_check.kinds import c_located
from capstone_check.kinds.c_located import where
from capstone_check.student import StudentError, as_array, describe


def raw_array(value, shape: tuple, what: str) -> np.ndarray:
    """``value`` as a float array of ``shape``; NaN and inf are kept (some cases expect them)."""
    return as_array(value, shape, what, finite=False)


def stats(value, keys: tuple, what: str) -> dict:
    if not isinstance(value, dict) or set(value) != set(keys):
        raise StudentError(f"{what}: expected a dict with keys {', '.join(keys)}, found {describe(value)}", "invalid")
    return {key: float(raw_array(value[key], (), f"{what}['{key}']")) for key in keys}


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


class Entropy(Check):
    id = "C.entropy"
    name = "Policy entropy in nats, one-hot policies included, and the logits' magnitude"
    Bar = ToleranceBar

    def collect(self, student, ctx):
        H, M = student.fn("policy_entropy"), student.fn("logit_magnitude")
        out = []
        for kind, logits in entropy_logits_cases(ctx.seed):
            out.append([raw_array(H(logits.copy()), (len(logits),), f"policy_entropy ({kind} logits)"),
                        raw_array(M(np.where(np.isinf(logits), 0.0, logits)), (len(logits),),
                                f"logit_magnitude ({kind} logits)")])
        return {"out": out}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (kind, logits), (H, M) in pairs(entropy_logits_cases(ctx.seed), data["out"], "logits cases"):
            want = oracle.entropy_nats(logits)
            label = "one-hot entropy" if kind == "one-hot" else "entropy"
            if label not in failed and not close_where_defined(H, want, tol):
                hint = ""
                if close_where_defined(H, want / np.log(2), 1e-6):
                    hint = " (these are bits: use the natural logarithm, entropy is measured in nats here)"
                elif np.any(np.isnan(np.asarray(H, float))):
                    hint = " (NaN: count 0 log 0 as 0, and subtract the largest logit before exp)"
                failed[label] = f"{label}, {kind} logits: expected -sum pi log pi in nats; {difference(H, want)}{hint}"
            want_m = oracle.logit_magnitude(np.where(np.isinf(logits), 0.0, logits))
            label = "magnitude under a shift" if kind == "shifted" else "magnitude"
            if label not in failed and not close_where_defined(M, want_m, tol):
                failed[label] = (f"logit_magnitude, {kind} logits: expected mean_a |z_a - mean z| per row; "
                                 f"{difference(M, want_m)}" + (" (a shift common to all actions must not change it)"
                                                         if kind == "shifted" else ""))
        cases, out = list(entropy_logits_cases(ctx.seed)), data["out"]
        findings = (matched(of_piece(MISTAKES, "policy_entropy"), [(z,) for _, z in cases], [o[0] for o in out])
                    + matched(of_piece(MISTAKES, "logit_magnitude"),
                              [(np.where(np.isinf(z), 0.0, z),) for _, z in cases], [o[1] for o in out]))
        kinds = [kind for kind, _ in cases]
        finite = [np.where(np.isinf(z), 0.0, z) for _, z in cases]
        said = (where(self.id, "policy_entropy", kinds, [o[0] for o in out],
                      [oracle.entropy_nats(z) for _, z in cases], tol, c_located.ENTROPY_KINDS)
                + where(self.id, "logit_magnitude", kinds, [o[1] for o in out],
                        [oracle.logit_magnitude(z) for z in finite], tol, c_located.ENTROPY_KINDS))
        return Verdict.of(list(failed.values()), 4, "entropy in nats (one-hot rows included) and logit magnitude match",
                          findings=findings, located=said)


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


class KLClip(Check):
    id = "C.kl_clip"
    name = "Approximate KL and clip fraction from old and new log-probabilities"
    Bar = ToleranceBar

    def collect(self, student, ctx):
        kl, cf = student.fn("approx_kl"), student.fn("clip_fraction")
        return {"out": [[float(raw_array(kl(new.copy(), old.copy()), (), "approx_kl")),
                         float(raw_array(cf(new.copy(), old.copy(), eps), (), "clip_fraction"))]
                        for new, old, eps in ratio_cases(ctx.seed)]}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (new, old, eps), (kl, cf) in pairs(ratio_cases(ctx.seed), data["out"], "log-prob cases"):
            want = oracle.approx_kl(new, old)
            label = "KL of an unchanged policy" if np.all(new == old) else "KL"
            if label not in failed and not close_where_defined(kl, want, tol):
                naive = np.mean(old - new)
                hint = (" (that is mean(log old - log new), which can be negative; use (rho - 1) - log rho)"
                        if close_where_defined(kl, naive, 1e-9) or close_where_defined(kl, -naive, 1e-9) else "")
                failed[label] = f"{label}: expected mean((rho - 1) - log rho) = {want:.6g}, found {kl:.6g}{hint}"
            want_cf = oracle.clip_fraction(new, old, eps)
            if "clip" not in failed and not close_where_defined(cf, want_cf, tol):
                failed["clip"] = (f"clip fraction at eps = {eps}: expected the share of |rho - 1| > eps, "
                                  f"{want_cf:.4g}, found {cf:.4g}")
        cases, out = list(ratio_cases(ctx.seed)), data["out"]
        findings = (matched(of_piece(MISTAKES, "approx_kl"), [c[:2] for c in cases], [o[0] for o in out])
                    + matched(of_piece(MISTAKES, "clip_fraction"), cases, [o[1] for o in out]))
        kinds = ["unchanged" if np.all(new == old) else "changed" for new, old, _ in cases]
        said = (where(self.id, "approx_kl", kinds, [o[0] for o in out],
                      [oracle.approx_kl(new, old) for new, old, _ in cases], tol, c_located.RATIO_KINDS)
                + where(self.id, "clip_fraction", kinds, [o[1] for o in out],
                        [oracle.clip_fraction(*c) for c in cases], tol, c_located.RATIO_KINDS))
        return Verdict.of(list(failed.values()), 3, "approximate KL and clip fraction match, 0 for an unchanged policy",
                          findings=findings, located=said)


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


class ExplainedVariance(Check):
    id = "C.explained_variance"
    name = "Explained variance of the critic, constant returns included"
    Bar = ToleranceBar

    def collect(self, student, ctx):
        fn = student.fn("explained_variance")
        return {"out": [float(raw_array(fn(v.copy(), r.copy()), (), f"explained_variance ({kind})"))
                        for kind, v, r in variance_cases(ctx.seed)]}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (kind, v, r), got in pairs(variance_cases(ctx.seed), data["out"], "critic cases"):
            want = oracle.explained_variance(v, r)
            label = kind if kind == "constant returns" else "ordinary"
            if label in failed or close_where_defined(got, want, tol):
                continue
            if kind == "constant returns":
                failed[label] = (f"with constant returns Var(R) = 0 and the ratio is undefined: expected NaN, "
                                 f"found {got:.6g}")
            else:
                inverted = 1 - np.var(r) / np.var(r - v) if np.var(r - v) > 0 else np.nan
                hint = (" (the ratio is upside down: Var(R - V) goes on top)"
                        if close_where_defined(got, inverted, 1e-9) else "")
                failed[label] = f"{kind}: expected 1 - Var(R - V) / Var(R) = {want:.6g}, found {got:.6g}{hint}"
        cases = [(v, r) for _, v, r in variance_cases(ctx.seed)]
        said = where(self.id, "explained_variance", [kind for kind, _, _ in variance_cases(ctx.seed)],
                     data["out"], [oracle.explained_variance(v, r) for v, r in cases], tol, c_located.VARIANCE_KINDS)
        return Verdict.of(list(failed.values()), 2, "matches, and is NaN for constant returns",
                          findings=matched(of_piece(MISTAKES, "explained_variance"), cases, data["out"]), located=said)


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


class TDAndQ(Check):
    id = "C.td_q"
    name = "TD-error statistics and Q-value overestimation against 1/(1-gamma) and Monte Carlo returns"
    Bar = ToleranceBar

    def collect(self, student, ctx):
        td_fn, q_fn = student.fn("td_error_stats"), student.fn("q_overestimation")
        return {"out": [[stats(td_fn(td.copy(), q.copy()), TD_KEYS, "td_error_stats"),
                         stats(q_fn(q.copy(), g.copy(), gamma), Q_KEYS, "q_overestimation")]
                        for td, q, g, gamma in td_cases(ctx.seed)]}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (td, q, g, gamma), (got_td, got_q) in pairs(td_cases(ctx.seed), data["out"], "TD cases"):
            want_td, want_q = oracle.td_error_stats(td, q), oracle.q_overestimation(q, g, gamma)
            for key, want, got, what in [(k, want_td[k], got_td[k], "td_error_stats") for k in TD_KEYS] + \
                                        [(k, want_q[k], got_q[k], "q_overestimation") for k in Q_KEYS]:
                label = f"{what}['{key}']"
                if label not in failed and not close_where_defined(got, want, tol):
                    failed[label] = (f"{label} at gamma = {gamma}: expected {want:.6g}, found {got:.6g}"
                                     f"{td_hint(key, got, td, q)}")
        cases, out = list(td_cases(ctx.seed)), data["out"]
        findings = (matched(of_piece(MISTAKES, "td_error_stats"), [c[:2] for c in cases],
                            [[o[0][k] for k in TD_KEYS] for o in out])
                    + matched(of_piece(MISTAKES, "q_overestimation"), [c[1:] for c in cases],
                              [[o[1][k] for k in Q_KEYS] for o in out]))
        kinds = ["negative Q" if (q < 0).any() else "positive Q" for _, q, _, _ in cases]
        said = [statement for part, keys, fn in ((0, TD_KEYS, lambda c: oracle.td_error_stats(*c[:2])),
                                                 (1, Q_KEYS, lambda c: oracle.q_overestimation(*c[1:])))
                for key in keys for statement in where(
                    self.id, f"{('td_error_stats', 'q_overestimation')[part]}:{key}", kinds,
                    [o[part][key] for o in out], [fn(c)[key] for c in cases], tol, c_located.TD_KINDS)]
        return Verdict.of(list(failed.values()), 6, "TD-error statistics and overestimation match", findings=findings,
                          located=said)


def td_hint(key: str, got: float, td, q) -> str:
    """What a wrong TD or Q statistic most likely did, when it is recognisable."""
    if key == "above_bound":
        return " (with reward 1 per step no return exceeds 1 / (1 - gamma))"
    if key == "relative" and (q < 0).any() and close_where_defined(got, np.abs(td).mean() / abs(q.mean()), 1e-9):
        return (f" (that divides by |mean Q| = {abs(q.mean()):.4g}, not by the values' size mean |Q| = "
                f"{np.abs(q).mean():.4g})")
    return ""


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


class ReturnDrop(Check):
    id = "C.return_drop"
    name = "Return stability after the peak"
    Bar = ToleranceBar

    def collect(self, student, ctx):
        fn = student.fn("return_drop")
        return {"out": [float(raw_array(fn(curve.copy()), (), f"return_drop ({kind})"))
                        for kind, curve in curve_cases(ctx.seed)]}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (kind, curve), got in pairs(curve_cases(ctx.seed), data["out"], "return curves"):
            want = oracle.return_drop(curve)
            label = "ordinary" if kind == "ordinary" else "edge"
            if label not in failed and not close_where_defined(got, want, tol):
                failed[label] = f"{kind} curve: expected 1 - mean(after the peak) / peak = {want:.6g}, found {got:.6g}"
        cases = [(curve,) for _, curve in curve_cases(ctx.seed)]
        said = where(self.id, "return_drop", [kind for kind, _ in curve_cases(ctx.seed)], data["out"],
                     [oracle.return_drop(c) for c, in cases], tol, c_located.CURVE_KINDS)
        return Verdict.of(list(failed.values()), 2, "matches, gaps, a final peak and an empty curve included",
                          findings=matched(of_piece(MISTAKES, "return_drop"), cases, data["out"]), located=said)
