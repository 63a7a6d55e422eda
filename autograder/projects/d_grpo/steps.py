"""Project D's check of the whole step (D.grpo_step), on inputs that reach every branch on every seed: steps with
beta > 0 and with weights other than the default."""

from __future__ import annotations

import numpy as np

from autograder.cascade import Probe, explained
from autograder.checks import Check, Malformed, ToleranceBar, Verdict, every_case, raised_cases
from autograder.comparisons import close
from autograder.findings import matched, of_piece
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from autograder.projects.d_grpo.pieces import REWARDS, fmt
from autograder.projects._shared.stand_ins import public_records
from autograder.projects.d_grpo.stand_ins import ORACLE_NAMES, PARAMETERS, recorded_calls
from capstone_check.kinds import d_located
from capstone_check.located import located, raising
from capstone_check.student import StudentError, as_array
from capstone_check.own_lines import EVERY, led, own_lines, reran_whole
from capstone_check.through import read_records, reran, through
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

STEP_MISTAKES = {  # a mistake worth naming, and how the reference would make it
    "the KL penalty's sign is flipped (it is subtracted: r - beta * log(p / p_ref))":
        lambda case: {**case, "beta": -case["beta"]} if case["beta"] else None,
    "beta is ignored": lambda case: {**case, "beta": 0.0} if case["beta"] else None,
    "the `weight` argument is ignored (the group standardized weight is used instead)":
        lambda case: {**case, "weight": oracle.standardized} if case["weight"] is not oracle.standardized else None,
    "only one ascent step is taken, whatever `epochs` says":
        lambda case: {**case, "epochs": 1} if case["epochs"] > 1 else None,
}


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
            Probe("kl_penalized_reward", (np.ones(4), p, q, 0.2), f"r = [1, 1, 1, 1], p = {fmt(p)}, p_ref = "
                  f"{fmt(q)}, beta = 0.2", (4,)),
            Probe("clipped_surrogate_gradient", (pi, pi_old, ys, A, 0.2),
                  f"ys = {ys.tolist()}, A = {fmt(A)}, eps = 0.2", (N_RESPONSES,))]


def reference_step(seed: int, i: int, theta, case: dict) -> np.ndarray:
    K, reward = STEP_CASES[i][:2]
    return oracle.grpo_step(theta, K, REWARDS[reward], np.random.default_rng(seed + i), **case)


def step_mistake(seed: int, i: int, theta, got, case: dict) -> str | None:
    """The named mistake whose step the student's matches, if one does."""
    for mistake, variant in STEP_MISTAKES.items():
        changed = variant(case)
        if changed is not None and close(got, reference_step(seed, i, theta, changed), 1e-9):
            return mistake
    return None


def setting(case) -> str:
    K, reward, beta, epochs, eps, lr, weight = case
    return (f"K = {K}, {reward}, beta = {beta}, {epochs} epoch{'s' * (epochs > 1)}, eps = {eps}, lr = {lr}"
            + (f", weight = {weight} weight" if weight else ""))


def first_entry(got, want) -> str:
    """Where two thetas first differ the most: "theta[x, y] = a, expected b"."""
    x, y = np.unravel_index(np.argmax(np.abs(got - want)), want.shape)
    return (f"theta[{x}, {y}] = {got[x, y]:.6g}, expected {want[x, y]:.6g} "
            f"(max |difference| {np.abs(got - want).max():.3g})")


class GrpoStep(Check):
    id = "D.grpo_step"
    name = "One GRPO step: the chapter's group_step at one epoch, clipped epochs beyond"

    Bar = ToleranceBar

    def prepare(self, ctx) -> str | None:
        """Grader side: on the public seeds, the reference pieces' outputs on the calls a right step makes on this
        seed's cases (``stand_ins``), for the child's re-runs; on the grading seeds nothing, as they would give the
        steps away."""
        return public_records(ctx, step_records)

    def collect(self, student, ctx):
        try:
            out = self.steps(student, ctx.seed)
        except StudentError as exc:
            exc.partial = {**exc.partial, "through": reruns(student, ctx)}
            raise
        return {"out": out, "through": reruns(student, ctx)}

    @staticmethod
    def steps(student, seed: int) -> list:
        step = student.fn("grpo_step")  # a case it raises on lets the others run: ``located_on_error`` says which

        def run(i, pair):
            case, given = pair[0], pair[1].copy()
            new = explained(student, "grpo_step", lambda: as_array(step(
                given, case[0], REWARDS[case[1]], np.random.default_rng(seed + i),
                **step_kwargs(case, judging=False)), THETA_REF.shape, f"grpo_step({setting(case)})"), grpo_probes())
            return [new, as_array(given, THETA_REF.shape, "the theta passed to grpo_step")]

        return [theta for pair in every_case(zip(STEP_CASES, step_inputs(seed)), run) for theta in pair]

    def located_on_error(self, partial, ctx) -> list[dict]:
        """The piece it departs through, if one; the feature of the steps the piece raised on (K = 1, beta above 0,
        ...), if one holds them all."""
        raised = raised_cases(partial, len(STEP_CASES))
        return led(through_said(self.id, partial.get("through"), ctx), [] if raised is None else raising(
            self.id, "grpo_step", d_located.STEP_FEATURES, [d_located.step_features(case) for case in STEP_CASES],
            raised), named=False)

    def judge(self, data, ctx):
        failures, mistakes = [], []
        if not isinstance(data["out"], list) or len(data["out"]) != 2 * len(STEP_CASES):
            raise Malformed(f"expected a new and a given theta for each of the {len(STEP_CASES)} steps")
        thetas, wants = step_inputs(ctx.seed), reference_steps(ctx.seed)
        for i, (case, theta, want) in enumerate(zip(STEP_CASES, thetas, wants)):
            got, given = np.array(data["out"][2 * i]), np.array(data["out"][2 * i + 1])
            if not np.array_equal(given, theta):
                failures.append(f"{setting(case)}: grpo_step changed the theta it was given; return a new array")
            elif not close(got, want, ctx.bar.tolerance):
                failures.append(f"{setting(case)}: {first_entry(got, want)}")
                mistakes.append(step_mistake(ctx.seed, i, theta, got, step_kwargs(case)))
        findings = step_findings(data, ctx.seed) if failures else []
        said = led(through_said(self.id, data.get("through"), ctx) if failures else [], located(
            [(np.array(data["out"][2 * i]) - theta, want - theta)
             for i, (theta, want) in enumerate(zip(thetas, wants))],
            ctx.bar.tolerance, self.id, d_located.STEP_SUBJECT, d_located.STEP_FEATURES,
            [d_located.step_features(case) for case in STEP_CASES]), named=bool(findings))
        return Verdict.of(failures, len(STEP_CASES), "matches the chapter's step, its clipped multi-epoch form, any "
                          "weight and beta > 0", note=hint(mistakes, contract=not said), findings=findings,
                          located=said)


def reference_steps(seed: int) -> list[np.ndarray]:
    """The reference's new theta of every case."""
    return [reference_step(seed, i, theta, step_kwargs(case))
            for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(seed)))]


def step_records(seed: int) -> dict[str, list]:
    return recorded_calls(STEP_CASES, step_inputs(seed), seed, lambda case: step_kwargs(case, judging=False))


def reruns(student, ctx) -> dict:
    """In the child: per piece that grpo_step calls, the new thetas of every case with the recorded stand-in in place
    of the student's piece (None where that cannot run); nothing without records (the grading seeds)."""
    stand_ins = read_records(ctx.inputs)
    if not stand_ins:
        return {}
    module, seed = student.module("grpo"), ctx.seed
    runs = [lambda i=i, case=case, theta=theta: np.asarray(module.grpo_step(
        theta.copy(), case[0], REWARDS[case[1]], np.random.default_rng(seed + i), **step_kwargs(case, judging=False)),
        dtype=float) for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(seed)))]
    return {**reran(module, stand_ins, lambda: [run() for run in runs]), EVERY: reran_whole(module, stand_ins, runs)}


def through_said(check: str, reruns_, ctx) -> list[dict]:
    """Where the steps depart through one piece, or in grpo_step's own lines: the re-runs a child sent (untrusted)
    against the reference's steps."""
    wants = reference_steps(ctx.seed)
    return through(check, "grpo_step", STEP_NOUN, list(ORACLE_NAMES), reruns_, wants, ctx.bar.tolerance) or (
        own_lines(check, "grpo_step", STEP_NOUN, reruns_.get(EVERY), wants, ctx.bar.tolerance, PARAMETERS)
        if isinstance(reruns_, dict) else [])


def step_findings(data, seed: int) -> list:
    """The step mistakes whose every case's theta is the student's."""
    cases = [(theta, case[0], REWARDS[case[1]], seed + i, step_kwargs(case))
             for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(seed)))]
    return matched(of_piece(MISTAKES, "grpo_step"), cases, data["out"][::2])


def hint(mistakes: list[str | None], contract: bool = True) -> str:
    """One hint: the named mistake every failing case matches, else the contract, said once (unless ``contract`` is
    False: a row that says where the steps depart is shorter without it)."""
    named = {m for m in mistakes if m}
    if len(named) == 1 and None not in mistakes:
        return f"hint: every failing case matches a step in which {named.pop()}"
    return ("the reference: one group per prompt from pi_old, the KL penalty folded in, weighted by `weight`, then "
            "`epochs` clipped-surrogate steps against that pi_old") if contract else ""
