"""Project A's checks of single pieces, on inputs the grader makes from its seed and judges with the oracle:
A.value_entropy grades explained_variance beside value_loss and entropy_bonus, the critic's other piece."""

from __future__ import annotations

import numpy as np

from autograder.projects.a_ppo.mistakes import MISTAKES
from autograder.projects._shared.ppo import oracle
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.once import WrittenOnce
from autograder.projects._shared.encode import (call, encode, locate, located_call, mistakes_as_values, out_array,
                                                out_float)
from autograder.projects._shared.ppo.cases import BATCH_KEYS, expected_batch, gae_cases
from autograder.projects.a_ppo.public import located as a_located
from autograder.projects.a_ppo.public.batch import collect_batch, judge_batch
from rlkit.cartpole import N_ACTIONS, OBS_DIM, Rollout, Segment, make_envs
from rlkit.categorical import log_prob
from rlkit.nn import mlp_forward, mlp_init


# ------------------------------------------------------------------------------------------------ GAE


class GAE(CallsCheck):
    id = "A.gae"
    name = "GAE: lambda = 1 is reward-to-go minus V, lambda = 0 the TD error, any lambda the recursion"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        tol, calls = ctx.bar.tolerance, []
        for T, N, gamma, lam, r, v, term, trunc in gae_cases(ctx.seed):
            label = {1.0: "lambda = 1", 0.0: "lambda = 0"}.get(lam, "general lambda")
            want = oracle.gae(r, v, term, trunc, gamma, lam)
            out = {"pair": [out_array(want, tol), out_array(want + v[:T], tol)]}
            what, args = f"gae(T={T}, N={N}, lam={lam})", [r, v, term, trunc, gamma, lam]
            calls.append(located_call(call("gae", args, out, f"{what} advantages", label, pick=0),
                                      a_located.features(term, trunc), ("advantages", 0)))
            calls.append(call("gae", args, out, f"{what} returns (advantages + V)", "returns", pick=1))
        ladder = {"fn": "gae", "pick": 0, "tol": tol, "rungs": [
            {"args": encode(list(rung)), "what": a_located.call_text(rung), "want": encode(oracle.gae(*rung))}
            for rung in a_located.LADDER]}
        return {"kind": "calls", "calls": calls, "total": 4, "ladder": ladder,
                "passed": "matches at lambda = 1, lambda = 0 and in general, across terminations, truncations and "
                          "segment ends",
                **locate(self.id, tol, {"advantages": (a_located.SUBJECT, a_located.FEATURES)})}


# ------------------------------------------------------------------------------------------------ batch


def segment_case(seed: int) -> tuple[Segment, np.ndarray, np.ndarray]:
    """A real rollout of a random policy, long enough to hold reset steps."""
    rng = np.random.default_rng(seed)
    actor, critic = mlp_init([OBS_DIM, 8, N_ACTIONS], rng, 1.0), mlp_init([OBS_DIM, 8, 1], rng, 1.0)
    rollout = Rollout(make_envs(6), seed)
    segment = rollout.collect(lambda o: mlp_forward(actor, o)[0], lambda o: mlp_forward(critic, o)[0][:, 0], 80, rng)
    return segment, rng.normal(size=segment.rewards.shape), rng.normal(size=segment.rewards.shape)


# the keys of the batch ppo_update reads ('values' feeds the logged explained variance alone): a batch wrong only
# elsewhere leaves a training run's updates as they are
UPDATE_READS = ("obs", "actions", "logp", "advantages", "returns")


class Batch(WrittenOnce):
    id = "A.batch"
    name = "The batch holds every real transition and no reset step"

    def spec(self, ctx) -> dict:
        segment, adv, ret = segment_case(ctx.seed)
        # a batch that keeps the reset steps is told by its arrays' length, a rule of the judge's own
        named = mistakes_as_values(MISTAKES, {"A.batch.next-values": segment.values[1:][segment.valid]})
        named["findings"]["A.batch.reset-steps-kept"] = MISTAKES["A.batch.reset-steps-kept"].text
        return {"kind": "a_batch", "args": encode([segment, adv, ret]), "keys": BATCH_KEYS,
                "want": encode(expected_batch(segment, adv, ret)), "resets": int((~segment.valid).sum()),
                "trained_on": list(UPDATE_READS), **named}

    def inputs(self, spec: dict, ctx) -> dict:
        return {"args": spec["args"], "keys": spec["keys"]}

    def gather(self, student, inputs: dict) -> dict:
        return collect_batch(student, inputs)

    def decide(self, spec: dict, data):
        return judge_batch(spec, data)


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


class ValueEntropy(CallsCheck):
    id = "A.value_entropy"
    name = "Value loss and entropy bonus, with their gradients"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        rng = np.random.default_rng(ctx.seed)
        values, returns = rng.normal(0, 5, 40), rng.normal(0, 5, 40)
        logits = np.vstack([rng.normal(0, 2, (30, N_ACTIONS)), [[60.0, -60.0], [0.0, 0.0]]])
        tol = ctx.bar.tolerance
        loss, grad = oracle.value_loss(values, returns)
        H, dH = oracle.entropy_bonus(logits)
        value = call("value_loss", [values, returns], {"pair": [out_array(loss, tol), out_array(grad, tol)]},
                     "value_loss: expected (0.5 mean (V - R)^2, (V - R) / B)", "value")
        entropy = call("entropy_bonus", [logits], {"pair": [out_array(H, tol), out_array(dH, tol)]},
                       "entropy_bonus: expected the mean entropy and dH/dz = -pi (log pi + H) / B", "entropy")
        calls = [located_call(value, {}, ("value", 1), ("value_loss", 0)),
                 located_call(entropy, a_located.entropy_row_features(logits), ("entropy", 1), ("entropy_value", 0))]
        for kind, predicted, target in variance_cases(ctx.seed):
            constant = kind == CONSTANT_TARGET
            calls.append(call("explained_variance", [predicted, target], out_float(
                oracle.explained_variance(predicted, target), tol, "defined", False), f"explained_variance ({kind})",
                kind if constant else "explained_variance",
                hint="Var(target) = 0: return NaN" if constant else "1 - Var(target - predicted) / Var(target)"))
        return {"kind": "calls", "calls": calls, "total": 4, "passed": "both values and both gradients match",
                **locate(self.id, tol, {"value": (a_located.VALUE_SUBJECT, {}),
                                        "entropy": (a_located.ENTROPY_SUBJECT, a_located.ROW_FEATURES),
                                        "value_loss": (a_located.VALUE_LOSS_SUBJECT, {}),
                                        "entropy_value": (a_located.ENTROPY_VALUE_SUBJECT, {})})}
