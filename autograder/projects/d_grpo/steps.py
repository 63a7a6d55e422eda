"""Project D's check of the whole step (D.grpo_step), on inputs that reach every branch on every seed: steps with
beta > 0 and with weights other than the default."""

from __future__ import annotations

import numpy as np

from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, encode, locate, located_call, out_array
from autograder.projects._shared.encode import reward as encode_reward, rng as encode_rng, weight as encode_weight
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from autograder.projects.d_grpo.pieces import REWARDS
from autograder.projects.d_grpo.stand_ins import PARAMETERS, recorded_calls
from capstone_check.cascade import Probe, shown
from autograder.projects.d_grpo.public import located as d_located
from rlkit.toy import HEDGE, N_RESPONSES, THETA_REF, group_draws, policy

# ------------------------------------------------------------------------------------------------ the whole step


def centred_weight(r):
    """A weight the grader passes as ``weight=``: the student's step must use it, not its default."""
    return r - r.mean()


def leave_one_out(r):
    return len(r) / (len(r) - 1) * (r - r.mean())


STEP_WEIGHTS = {None: oracle.standardized, "centred": centred_weight, "leave-one-out": leave_one_out}

STEP_CASES = [  # K, reward, beta, epochs, eps, lr, weight (None: grpo_step's default)
    (1, "verify", 0.0, 1, 0.2, 2.0, None), (4, "verify", 0.0, 1, 0.2, 2.0, None),
    (8, "sloppy", 0.2, 1, 0.2, 2.0, None), (4, "verify", 0.0, 4, 0.2, 2.0, None),
    (8, "sloppy", 0.2, 3, 0.1, 1.0, None), (32, "sloppy", 0.1, 2, 0.3, 2.0, None),
    (4, "sloppy", 0.2, 2, 0.2, 2.0, "centred"), (8, "verify", 0.1, 1, 0.2, 2.0, "leave-one-out"),
]

def step_inputs(seed: int) -> list[np.ndarray]:
    """Each case's theta: the reference's plus unit noise. In a case with beta > 0 the policy has started to hedge, as
    the sloppy reward teaches (the hedge's preference raised to the others' level), and the theta is drawn again until
    one of its groups samples the hedge beside another response: only there does p_ref differ within a group, so only
    there does a penalty that mishandles p_ref (log(p * p_ref), log p alone) change the step. Without this some seeds
    would show such a penalty and others would not."""
    rng = np.random.default_rng(seed)
    thetas = []
    for i, (K, _, beta, *_) in enumerate(STEP_CASES):
        theta = step_theta(rng, beta)
        while beta and not mixes_the_hedge(theta, K, seed + i):
            theta = step_theta(rng, beta)
        thetas.append(theta)
    return thetas


def step_theta(rng, beta: float) -> np.ndarray:
    theta = THETA_REF + rng.normal(0, 1, THETA_REF.shape)
    if beta:
        theta[:, HEDGE] -= THETA_REF[:, HEDGE]
    return theta


def mixes_the_hedge(theta, K: int, draw_seed: int) -> bool:
    """Whether a step from ``theta`` draws, in some prompt's group, the hedge beside another response."""
    groups = group_draws(policy(theta), K, np.random.default_rng(draw_seed))
    return any(np.any(ys == HEDGE) and np.any(ys != HEDGE) for ys in groups)


def step_kwargs(case, judging: bool = True) -> dict:
    """grpo_step's keyword arguments for a case; the child leaves ``weight`` out where the default is tested (the
    oracle's standardized weight, which the judge passes, is not available there)."""
    _, _, beta, epochs, eps, lr, weight = case
    kwargs = {"beta": beta, "lr": lr, "epochs": epochs, "eps": eps}
    return {**kwargs, "weight": STEP_WEIGHTS[weight]} if judging or weight else kwargs


STEP_NOUN = "steps"  # what a right step gives with the expected piece in place of the one it departs through


def grpo_probes() -> list[Probe]:
    """Small calls of the pieces ``grpo_step`` relies on, chosen to expose them: a group of equal rewards among them."""
    pi, pi_old = policy(THETA_REF)[0], policy(THETA_REF + 0.3)[0]
    ys, A = np.array([0, 2, 2, 5]), np.array([1.0, -0.5, -0.5, 0.0])
    p, q = pi[ys], policy(THETA_REF)[1][ys]
    return [Probe("group_standardized_weight", (np.ones(4),), "[1, 1, 1, 1]", (4,)),
            Probe("group_standardized_weight", (np.array([0.0, 1.0, 1.0, 0.0]),), "[0, 1, 1, 0]", (4,)),
            Probe("group_standardized_weight", (np.array([1.0]),), "[1]", (1,)),
            Probe("kl_penalized_reward", (np.ones(4), p, q, 0.2), f"r = [1, 1, 1, 1], p = {shown(p)}, p_ref = "
                  f"{shown(q)}, beta = 0.2", (4,)),
            Probe("clipped_surrogate_gradient", (pi, pi_old, ys, A, 0.2),
                  f"ys = {ys.tolist()}, A = {shown(A)}, eps = 0.2", (N_RESPONSES,))]


def reference_step(seed: int, i: int, theta, case: dict) -> np.ndarray:
    K, reward = STEP_CASES[i][:2]
    return oracle.grpo_step(theta, K, REWARDS[reward], np.random.default_rng(seed + i), **case)


def setting(case) -> str:
    K, reward, beta, epochs, eps, lr, weight = case
    return (f"K = {K}, {reward}, beta = {beta}, {epochs} epoch{'s' * (epochs > 1)}, eps = {eps}, lr = {lr}"
            + (f", weight = {weight} weight" if weight else ""))


class GrpoStep(CallsCheck):
    id = "D.grpo_step"
    name = "One GRPO step: the chapter's group_step at one epoch, clipped epochs beyond"
    mistakes = MISTAKES

    def spec(self, ctx) -> dict:
        calls = []
        for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(ctx.seed))):
            K, reward_name, beta, epochs, eps, lr, weight_name = case
            kwargs = {"beta": beta, "lr": lr, "epochs": epochs, "eps": eps}
            want = reference_step(ctx.seed, i, theta, step_kwargs(case))
            entry = call("grpo_step", [theta, K, encode_reward(reward_name), encode_rng(ctx.seed + i)],
                         out_array(want, ctx.bar.tolerance), f"grpo_step({setting(case)})", f"case {i}", keep=[0])
            entry["kwargs"] = {**kwargs, **({"weight": encode_weight(weight_name)} if weight_name else {})}
            calls.append(located_call(entry, d_located.step_features(case), ("step", None), base=theta))
        through = {"check": self.id, "fn": "grpo_step", "module": "grpo", "noun": STEP_NOUN,
                   "tol": ctx.bar.tolerance, "records": encode(step_records(ctx.seed)), "parameters": PARAMETERS}
        probes = {"composite": "grpo_step", "probes": encode([tuple(probe) for probe in grpo_probes()])}
        return {"kind": "calls", "calls": calls, "total": len(STEP_CASES), "through": through, "cascade": probes,
                "passed": "matches the chapter's step, its clipped multi-epoch form, any weight and beta > 0",
                **locate(self.id, ctx.bar.tolerance, {"step": (d_located.STEP_SUBJECT, d_located.STEP_FEATURES)},
                         raising=True)}


def reference_steps(seed: int) -> list[np.ndarray]:
    """The reference's new theta of every case."""
    return [reference_step(seed, i, theta, step_kwargs(case))
            for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(seed)))]


def step_records(seed: int) -> dict[str, list]:
    return recorded_calls(STEP_CASES, step_inputs(seed), seed, lambda case: step_kwargs(case, judging=False))


