"""Project A's checks of single pieces, on inputs the grader makes from its seed and judges with the oracle:
A.value_entropy grades explained_variance beside value_loss and entropy_bonus, the critic's other piece."""

from __future__ import annotations

import numpy as np

from autograder.checks import Check, Malformed, ToleranceBar, Verdict, pairs
from autograder.comparisons import close, close_where_defined, difference
from autograder.findings import matched, of_piece
from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.ppo.cases import BATCH_KEYS, expected_batch, gae_cases
from capstone_check.kinds import a_located
from capstone_check.located import located, smallest_case
from capstone_check.student import StudentError, as_array, as_float, describe
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, Segment, make_envs
from rlkit.categorical import log_prob
from rlkit.nn import mlp_forward, mlp_init


def pair(value, shapes, what):
    """A (first, second) pair of arrays of the given shapes."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise StudentError(f"{what}: expected a pair (value, gradient), found {describe(value)}", "invalid")
    return [as_array(v, shape, f"{what}[{i}]") for i, (v, shape) in enumerate(zip(value, shapes))]


# ------------------------------------------------------------------------------------------------ GAE


class GAE(Check):
    id = "A.gae"
    name = "GAE: lambda = 1 is reward-to-go minus V, lambda = 0 the TD error, any lambda the recursion"

    Bar = ToleranceBar

    def collect(self, student, ctx):
        fn, out = student.fn("gae"), []
        for T, N, gamma, lam, r, v, term, trunc in gae_cases(ctx.seed):
            adv, ret = pair(fn(r.copy(), v.copy(), term.copy(), trunc.copy(), gamma, lam), [(T, N), (T, N)],
                            f"gae(T={T}, N={N}, lam={lam})")
            out.append([adv, ret])
        return {"out": out, "ladder": [on_rung(fn, rung) for rung in a_located.LADDER]}

    def judge(self, data, ctx):
        tol, failed = ctx.bar.tolerance, {}
        for (T, N, gamma, lam, r, v, term, trunc), (adv, ret) in pairs(gae_cases(ctx.seed), data["out"]):
            if lam == 1.0:
                want, label = oracle.reward_to_go_minus_value(r, v, term, trunc, gamma), "lambda = 1"
                what = "the discounted reward-to-go (bootstrapped at truncations and the segment's end) minus V"
            elif lam == 0.0:
                want, label, what = oracle.td_error(r, v, term, gamma), "lambda = 0", "the TD error"
            else:
                want, label, what = oracle.gae(r, v, term, trunc, gamma, lam), "general lambda", "the GAE recursion"
            if label not in failed and not close(adv, want, tol):
                failed[label] = f"{label} (T = {T}, N = {N}): advantages should equal {what}; {difference(adv, want)}"
            if "returns" not in failed and not close(ret, np.array(adv) + v[:T], tol):
                failed["returns"] = "returns should be advantages + V(s_t)"
        cases = [(r, v, term, trunc, gamma, lam) for _, _, gamma, lam, r, v, term, trunc in gae_cases(ctx.seed)]
        return Verdict.of(list(failed.values()), 4, "matches at lambda = 1, lambda = 0 and in general, across "
                          "terminations, truncations and segment ends",
                          findings=matched(of_piece(MISTAKES, "gae"), cases, data["out"]),
                          located=gae_located(cases, data["out"], tol), case=gae_smallest(data, tol))


def on_rung(fn, rung):
    """The advantages ``gae`` returns on a ladder's rung, or None when it raises or returns something else: a rung is
    shown, never graded, so it fails nothing by itself."""
    r, v, term, trunc, gamma, lam = rung
    try:
        return as_array(fn(r.copy(), v.copy(), term.copy(), trunc.copy(), gamma, lam)[0], r.shape, "gae")
    except Exception:  # noqa: BLE001 - any failure on a rung only means the rung is shown as raising
        return None


def gae_located(cases, outputs, tol) -> list[dict]:
    """Where the advantages depart, over every case (``capstone_check.kinds.a_located``'s features)."""
    pairs = [(adv, oracle.gae(r, v, term, trunc, gamma, lam)) for (r, v, term, trunc, gamma, lam), (adv, _)
             in zip(cases, outputs)]
    masks = [a_located.features(term, trunc) for _, _, term, trunc, _, _ in cases]
    return located(pairs, tol, "A.gae", a_located.SUBJECT, a_located.FEATURES, masks)


def gae_smallest(data, tol) -> str:
    """The smallest rung of the ladder on which the student's advantages fail."""
    got = data.get("ladder")
    if not isinstance(got, list) or len(got) != len(a_located.LADDER):
        raise Malformed(f"expected {len(a_located.LADDER)} results for the ladder")
    return smallest_case([(a_located.call_text(rung), None if g is None else np.asarray(g, dtype=float),
                           oracle.gae(rung[0], rung[1], rung[2], rung[3], rung[4], rung[5]))
                          for rung, g in zip(a_located.LADDER, got)], tol)


# ------------------------------------------------------------------------------------------------ batch


def segment_case(seed: int) -> tuple[Segment, np.ndarray, np.ndarray]:
    """A real rollout of a random policy, long enough to hold reset steps."""
    rng = np.random.default_rng(seed)
    actor, critic = mlp_init([OBS_DIM, 8, N_ACTIONS], rng, 1.0), mlp_init([OBS_DIM, 8, 1], rng, 1.0)
    rollout = Rollout(make_envs(6), seed)
    segment = rollout.collect(lambda o: mlp_forward(actor, o)[0], lambda o: mlp_forward(critic, o)[0][:, 0], 80, rng)
    return segment, rng.normal(size=segment.rewards.shape), rng.normal(size=segment.rewards.shape)


def first_row(got, want) -> str:
    """Where a batch array first differs: "row 3 is 0.52, expected 0.17"."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    wrong = ~np.isclose(got, want, rtol=1e-6, atol=1e-6)
    row = int(np.argwhere(wrong)[0][0])
    return f"row {row} is {np.array2string(got[row], precision=4)}, expected {np.array2string(want[row], precision=4)}"


def batch_hint(key: str, got, segment) -> str:
    """A hint when 'values' holds V(s_{t+1}), the bootstrap values one step late."""
    if key == "values" and close(got, segment.values[1:][segment.valid], 1e-6):
        return " (hint: these are V(s_{t+1}); a transition's value is V(s_t), segment.values[:-1])"
    return ""


class Batch(Check):
    id = "A.batch"
    name = "The batch holds every real transition and no reset step"

    def collect(self, student, ctx):
        segment, adv, ret = segment_case(ctx.seed)
        got = student.fn("flatten_batch")(segment, adv.copy(), ret.copy())
        if not isinstance(got, dict):
            raise StudentError(f"flatten_batch: expected a dict, found {describe(got)}", "invalid")
        missing = [key for key in BATCH_KEYS if key not in got]
        if missing:
            raise StudentError(f"flatten_batch: expected keys {', '.join(BATCH_KEYS)}; missing {', '.join(missing)}",
                               "invalid")
        arrays = {}
        for key in BATCH_KEYS:
            try:
                arrays[key] = np.asarray(got[key], dtype=float)
            except (TypeError, ValueError):
                raise StudentError(f"flatten_batch()['{key}']: expected numbers, found {describe(got[key])}",
                                   "invalid") from None
        return {"shapes": {key: list(a.shape) for key, a in arrays.items()}, **arrays}

    def judge(self, data, ctx):
        segment, adv, ret = segment_case(ctx.seed)
        want = expected_batch(segment, adv, ret)
        resets = int((~segment.valid).sum())
        failures = []
        for key in BATCH_KEYS:
            shape = tuple(data["shapes"][key])
            if shape != want[key].shape:
                failures.append(f"'{key}' has shape {shape}, expected {want[key].shape}: the segment holds "
                                f"{segment.valid.size} steps of which {resets} are reset steps that must be dropped")
            elif not close(data[key], want[key], 1e-6):
                failures.append(f"'{key}' is not the segment's valid transitions in array[valid] order: "
                                f"{first_row(data[key], want[key])}{batch_hint(key, data[key], segment)}")
        return Verdict.of(failures, len(BATCH_KEYS), f"{segment.valid.sum()} real transitions, {resets} reset "
                          "steps dropped", findings=batch_findings(data, segment))


def batch_findings(data, segment) -> list:
    """Every array holding a reset step's row, or values one step late."""
    found = []
    if all(tuple(data["shapes"][key])[:1] == (segment.valid.size,) for key in BATCH_KEYS):
        found.append(MISTAKES["A.batch.reset-steps-kept"].finding)
    if batch_hint("values", data["values"], segment):
        found.append(MISTAKES["A.batch.next-values"].finding)
    return found


# --------------------------------------------------------------------------------------------- the pieces of the loss


# (the advantage's sign, the ratio's side of the clip: above 1 + eps or below 1 - eps): every corner beyond the clip
CORNERS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def surrogate_cases(seed: int, n: int = 6):
    """(logits, actions, logp_old, advantages, eps, kind): at theta_old, beyond the clip, and anywhere. Every mixed
    case holds a sample in each corner beyond the clip at an advantage under 1, so that every seed tells a test of
    the advantage's sign from one of its size (``A > 1`` for ``A > 0``), on either side of the clip."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        B = int(rng.integers(5, 40))
        logits = rng.normal(0, 2, (B, N_ACTIONS))
        actions = rng.integers(0, N_ACTIONS, B)
        advantages = rng.normal(0, 1, B)
        eps = float(rng.choice([0.1, 0.2, 0.3]))
        at_old = log_prob(logits, actions)
        if i % 3 == 0:
            yield logits, actions, at_old, advantages, eps, "at theta = theta_old"
        elif i % 3 == 1:  # every ratio beyond the clip on the side where clipping removes the gradient
            rho = np.where(advantages > 0, 1 + eps + rng.uniform(0.05, 1, B), 1 - eps - rng.uniform(0.05, 0.5, B))
            yield logits, actions, at_old - np.log(rho), advantages, eps, "beyond the clip, favourable side"
        else:
            old = at_old + rng.normal(0, 0.4, B)
            for j, (sign, side) in enumerate(CORNERS):
                advantages[j] = sign * rng.uniform(0.05, 1)
                old[j] = at_old[j] - np.log(1 + side * (eps + rng.uniform(0.05, 0.5)))
            yield logits, actions, old, advantages, eps, "mixed ratios"


def surrogate_features(logits, actions, logp_old, advantages, eps) -> dict:
    return a_located.sample_features(np.exp(log_prob(logits, actions) - logp_old), advantages, eps)


CONSTANT_TARGET = "a constant target"


def variance_cases(seed: int):
    """(kind, predicted, target) for ``explained_variance``: a critic of some skill, a perfect one, a constant one,
    a constant target (Var(target) = 0, where the README asks for NaN) with predictions that vary, so that a
    division left unguarded gives inf, not NaN, and a target whose variance lies between 0 and 1, so that a guard
    against a zero variance is told from one against any variance up to 1 (drawn last: the cases before it are as
    they were)."""
    rng = np.random.default_rng([seed, 15])
    target = rng.normal(0, 3, int(rng.integers(20, 60)))
    yield "a critic of some skill", 0.7 * target + rng.normal(0, 1, len(target)), target
    yield "a perfect critic", target.copy(), target
    yield "a constant critic", np.full(len(target), float(rng.normal())), target
    yield CONSTANT_TARGET, rng.normal(0, 1, 16), np.full(16, 2.5)  # 2.5 sums exactly: Var is 0, not rounding's
    small = rng.normal(0, 0.3, int(rng.integers(20, 60)))
    yield "a target of small spread", 0.7 * small + rng.normal(0, 0.1, len(small)), small


def variance_failures(cases, got: list, tol: float) -> list[str]:
    """The first departing case of each kind (a constant target, or any other), as failures."""
    failed = {}
    for (kind, predicted, target), value in pairs(cases, got, "explained variance cases"):
        want = oracle.explained_variance(predicted, target)
        label = kind if kind == CONSTANT_TARGET else "variance"
        if label in failed or close_where_defined(value, want, tol):
            continue
        failed[label] = (f"explained_variance ({kind}): expected NaN, as Var(target) = 0, found {value:.6g}"
                         if kind == CONSTANT_TARGET else f"explained_variance ({kind}): expected 1 - Var(target - "
                         f"predicted) / Var(target) = {want:.6g}, found {value:.6g}")
    return list(failed.values())


class ValueEntropy(Check):
    id = "A.value_entropy"
    name = "Value loss and entropy bonus, with their gradients"

    Bar = ToleranceBar

    def collect(self, student, ctx):
        rng = np.random.default_rng(ctx.seed)
        values, returns = rng.normal(0, 5, 40), rng.normal(0, 5, 40)
        logits = np.vstack([rng.normal(0, 2, (30, N_ACTIONS)), [[60.0, -60.0], [0.0, 0.0]]])
        v = pair(student.fn("value_loss")(values, returns), [(), (40,)], "value_loss")
        h = pair(student.fn("entropy_bonus")(logits), [(), logits.shape], "entropy_bonus")
        fn = student.fn("explained_variance")
        explained = [as_float(fn(predicted.copy(), target.copy()), f"explained_variance ({kind})", nan=True)
                     for kind, predicted, target in variance_cases(ctx.seed)]
        return {"value": v, "entropy": h, "explained_variance": explained}

    def judge(self, data, ctx):
        rng = np.random.default_rng(ctx.seed)
        values, returns = rng.normal(0, 5, 40), rng.normal(0, 5, 40)
        logits = np.vstack([rng.normal(0, 2, (30, N_ACTIONS)), [[60.0, -60.0], [0.0, 0.0]]])
        failures = []
        loss, grad = oracle.value_loss(values, returns)
        if not (close(data["value"][0], loss, ctx.bar.tolerance) and close(data["value"][1], grad, ctx.bar.tolerance)):
            sign = close(data["value"][1], -grad, 1e-9)
            failures.append(f"value_loss: expected ({loss:.6g}, (V - R) / B), found ({data['value'][0]:.6g}, ...)"
                            + (" with the gradient's sign flipped" if sign else ""))
        H, dH = oracle.entropy_bonus(logits)
        if not (close(data["entropy"][0], H, ctx.bar.tolerance) and close(data["entropy"][1], dH, ctx.bar.tolerance)):
            failures.append(f"entropy_bonus: expected H = {H:.6g} nats and dH/dz = -pi (log pi + H) / B, found H = "
                            f"{data['entropy'][0]:.6g} (rows include a near one-hot and a uniform policy)")
        cases = list(variance_cases(ctx.seed))
        failures += variance_failures(cases, data["explained_variance"], ctx.bar.tolerance)
        findings = (matched(of_piece(MISTAKES, "value_loss"), [(values, returns)], [data["value"]])
                    + matched(of_piece(MISTAKES, "entropy_bonus"), [(logits,)], [data["entropy"]])
                    + matched(of_piece(MISTAKES, "explained_variance"), [case[1:] for case in cases],
                              data["explained_variance"]))
        said = (located([(data["value"][1], grad)], ctx.bar.tolerance, self.id, a_located.VALUE_SUBJECT)
                + located([(data["entropy"][1], dH)], ctx.bar.tolerance, self.id, a_located.ENTROPY_SUBJECT,
                          a_located.ROW_FEATURES, [a_located.entropy_row_features(logits)])
                + located([(data["value"][0], loss)], ctx.bar.tolerance, self.id, a_located.VALUE_LOSS_SUBJECT)
                + located([(data["entropy"][0], H)], ctx.bar.tolerance, self.id, a_located.ENTROPY_VALUE_SUBJECT))
        return Verdict.of(failures, 4, "both values and both gradients match", findings=findings, located=said)
