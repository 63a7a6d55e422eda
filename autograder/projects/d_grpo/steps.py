"""Project D's checks of the whole step and of the exploit's price, on inputs that reach every branch on every seed:
steps with beta > 0 and with weights other than the default, rows whose price a floor decides."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.cascade import Probe, explained
from autograder.checks import Bar, Check, Malformed, ToleranceBar, Verdict, pairs
from autograder.comparisons import close
from autograder.findings import matched, of_piece
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from autograder.projects.d_grpo.pieces import REWARDS, fmt
from capstone_check.kinds import d_located
from capstone_check.located import located
from capstone_check.student import as_array, as_float
from rlkit.toy import CONTAINS_ANSWER, HEDGE, N_PROMPTS, N_RESPONSES, THETA_REF, policy

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


def step_inputs(seed: int):
    rng = np.random.default_rng(seed)
    return [THETA_REF + rng.normal(0, 1, THETA_REF.shape) for _ in STEP_CASES]


def step_kwargs(case, judging: bool = True) -> dict:
    """grpo_step's keyword arguments for a case; the child leaves ``weight`` out where the default is tested (the
    oracle's standardized weight, which the judge passes, is not available there)."""
    _, _, beta, epochs, eps, lr, weight = case
    kwargs = {"beta": beta, "lr": lr, "epochs": epochs, "eps": eps}
    return {**kwargs, "weight": STEP_WEIGHTS[weight]} if judging or weight else kwargs


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

    def collect(self, student, ctx):
        step, out = student.fn("grpo_step"), []
        for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(ctx.seed))):
            given, K = theta.copy(), case[0]
            new = explained(student, "grpo_step", lambda: as_array(step(
                given, K, REWARDS[case[1]], np.random.default_rng(ctx.seed + i), **step_kwargs(case, judging=False)),
                THETA_REF.shape, f"grpo_step({setting(case)})"), grpo_probes())
            out.append(new)
            out.append(as_array(given, THETA_REF.shape, "the theta passed to grpo_step"))
        return {"out": out}

    def judge(self, data, ctx):
        failures, mistakes = [], []
        if not isinstance(data["out"], list) or len(data["out"]) != 2 * len(STEP_CASES):
            raise Malformed(f"expected a new and a given theta for each of the {len(STEP_CASES)} steps")
        for i, (case, theta) in enumerate(zip(STEP_CASES, step_inputs(ctx.seed))):
            got, given = np.array(data["out"][2 * i]), np.array(data["out"][2 * i + 1])
            kwargs = step_kwargs(case)
            want = reference_step(ctx.seed, i, theta, kwargs)
            if not np.array_equal(given, theta):
                failures.append(f"{setting(case)}: grpo_step changed the theta it was given; return a new array")
            elif not close(got, want, ctx.bar.tolerance):
                failures.append(f"{setting(case)}: {first_entry(got, want)}")
                mistakes.append(step_mistake(ctx.seed, i, theta, got, kwargs))
        thetas = step_inputs(ctx.seed)
        said = located([(np.array(data["out"][2 * i]) - theta, reference_step(ctx.seed, i, theta, step_kwargs(case))
                         - theta) for i, (case, theta) in enumerate(zip(STEP_CASES, thetas))], ctx.bar.tolerance,
                       self.id, d_located.STEP_SUBJECT, d_located.STEP_FEATURES,
                       [d_located.step_features(case) for case in STEP_CASES])
        return Verdict.of(failures, len(STEP_CASES), "matches the chapter's step, its clipped multi-epoch form, any "
                          "weight and beta > 0", note=hint(mistakes, contract=not said),
                          findings=step_findings(data, ctx.seed) if failures else [], located=said)


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


# ------------------------------------------------------------------------------------------------ pricing


def floor_rows(rng, binding: bool):
    """A row whose exploit is capped by a response the reference prefers and floored by one it disfavours that earns
    more: the floor is set above the cap (no beta works: the price is 0) or below it (the price is the cap)."""
    logits = rng.normal(0, 2, N_RESPONSES)
    order = np.argsort(logits)
    exploit, lowest = int(order[N_RESPONSES // 2]), int(order[0])
    rewards = 1.0 - rng.uniform(0.5, 1.0, N_RESPONSES)
    rewards[exploit] = 1.0
    higher = logits > logits[exploit]
    cap = float(np.min((1.0 - rewards[higher]) / (logits[higher] - logits[exploit])))
    floor = cap * (2.0 if binding else 0.5)
    rewards[lowest] = 1.0 + floor * (logits[exploit] - logits[lowest])
    return logits, rewards, exploit


def dyadic_row(rng):
    """A row of eighths (every difference and the quotients below are exact in floating point): the exploit in the
    middle of the reference's order with the top reward, every other response below it, so it has a cap."""
    logits = rng.permutation(np.arange(N_RESPONSES) - N_RESPONSES // 2) / 2.0  # distinct halves, one of them 0
    exploit = int(np.flatnonzero(logits == 0.0)[0])
    rewards = rng.integers(0, 4, N_RESPONSES) / 8.0
    rewards[exploit] = 1.0
    return logits, rewards, exploit


TIES = {"the same": 0.0, "more": 1 / 8, "less": -3 / 8}  # what the tied response earns beside the exploit


def tie_row(rng, earns: str):
    """A response tied with the exploit in the reference's logits that earns ``earns`` (a key of ``TIES``): if it earns
    the same or more, no beta makes the exploit the unique mode (price 0); if it earns less, it sets no bound at all
    (the price is the others' cap)."""
    logits, rewards, exploit = dyadic_row(rng)
    tied = int(rng.choice(np.flatnonzero(logits < 0)))
    logits[tied] = logits[exploit]
    rewards[tied] = rewards[exploit] + TIES[earns]
    return logits, rewards, exploit


def cap_equals_floor_row(rng):
    """The tightest cap and the highest floor equal to the last bit: the exploit only ties at that one beta, so no
    beta > 0 makes it the unique mode (price 0)."""
    logits, rewards, exploit = dyadic_row(rng)
    above, below = np.flatnonzero(logits > 0), np.flatnonzero(logits < 0)
    capping = int(rng.choice(np.flatnonzero(np.isin(logits, [0.5, 1.0, 2.0]))))  # a power of two: the cap is exact
    cap = (rewards[exploit] - rewards[capping]) / logits[capping]  # logits[exploit] is 0
    caps = (rewards[exploit] - rewards[above]) / logits[above]
    rewards[above] = np.where(caps < cap, rewards[exploit] - cap * logits[above], rewards[above])  # none tighter
    floored = int(rng.choice(below))
    rewards[floored] = rewards[exploit] + cap * -logits[floored]  # gap / disadvantage = (-cap d) / (-d) = cap
    return logits, rewards, exploit


# The kinds of row price_cases draws, in its order after the toy's four prompts: every seed draws every kind, so the
# public seeds show a student each kind that final grading's seeds can.
PRICE_ROW_KINDS = (["random"] * 12 + ["floor binds", "floor does not bind"] * 2
                   + [f"logit tie earning {earns}" for earns in TIES] + ["cap equals floor"] * 2)


def price_cases(seed: int):
    """The toy's four prompts first, then rows the student has not seen (``PRICE_ROW_KINDS``): random ones, two whose
    floor binds and two whose floor does not, three logit ties with the exploit (the tied response earning the same,
    more and less) and two rows whose cap equals their floor, on every seed."""
    cases = [(THETA_REF[x], CONTAINS_ANSWER[x], HEDGE) for x in range(N_PROMPTS)]
    rng = np.random.default_rng(seed)
    for i in range(12):
        logits, rewards = rng.normal(0, 2, N_RESPONSES), rng.choice([0.0, 0.5, 1.0], N_RESPONSES)
        exploit = int(rng.integers(N_RESPONSES))
        if i % 3:
            rewards[exploit] = rewards.max() + 0.5
        cases.append((logits, rewards, exploit))
    cases += [floor_rows(rng, binding) for binding in (True, False, True, False)]
    return cases + [tie_row(rng, earns) for earns in TIES] + [cap_equals_floor_row(rng), cap_equals_floor_row(rng)]


def price_hint(logits, rewards, exploit, got) -> str:
    """A hint when the student's price is the cap of a row whose floor binds or meets it, or of a row where a response
    tied with the exploit earns at least as much."""
    others = np.arange(len(rewards)) != exploit
    gap, disadvantage = rewards[exploit] - rewards[others], logits[others] - logits[exploit]
    caps = gap[disadvantage > 0] / disadvantage[disadvantage > 0]
    floors = gap[disadvantage < 0] / disadvantage[disadvantage < 0]
    if not len(caps) or not close(got, caps.min(), 1e-9) or got == 0:
        return ""
    if np.any((disadvantage == 0) & (gap <= 0)):
        return " (hint: a response tied with it in logit that earns as much keeps it from the unique mode: price 0)"
    if len(floors) and floors.max() == caps.min():
        return f" (hint: the floor {floors.max():.4g} equals the cap, where the exploit only ties: price 0)"
    if len(floors) and floors.max() > caps.min():
        return (f" (hint: a disfavoured response that earns more needs beta above {floors.max():.4g}, over the cap "
                f"{caps.min():.4g}: no beta works, price 0)")
    return ""


class PriceExploit(Check):
    id = "D.price_exploit"
    name = "Exercise 4: the beta that prices the loophole (chapter: 1/4)"

    class Bar(Bar):
        threshold_range: tuple[float, float] = Field(description="where the toy's price must fall (the chapter: 1/4)")
        tolerance: float = Field(description="largest gap from the reference's price, relative above 1")

    def collect(self, student, ctx):
        fn = student.fn("price_exploit")
        return {"out": [as_float(fn(logits.copy(), r.copy(), e), "price_exploit")
                        for logits, r, e in price_cases(ctx.seed)]}

    def judge(self, data, ctx):
        low, high = ctx.bar.threshold_range
        failures, cases = [], price_cases(ctx.seed)
        toy = data["out"][:N_PROMPTS]
        for x in (2, 3):  # 8*8 and 9*9: no honest answer is rewarded, so only the KL penalty stands in the way
            if not low <= toy[x] <= high:
                failures.append(f"on prompt {x} of the toy the hedge should stop paying near beta = 1/4 "
                                f"(reward gap 1 over log-odds disadvantage 4); returned {toy[x]:.4g}")
        for row, ((logits, rewards, exploit), got) in enumerate(pairs(cases, data["out"])):
            want = oracle.price_exploit(logits, rewards, exploit)
            if not (got == want or abs(got - want) <= ctx.bar.tolerance * max(1, abs(want))):
                failures.append(f"{price_row(row)}: "
                                f"returned {got:.6g}, expected {want:.6g}{price_hint(logits, rewards, exploit, got)}")
                break
        wants = [oracle.price_exploit(*case) for case in cases]
        said = located(list(zip(data["out"], wants)), ctx.bar.tolerance, self.id, d_located.PRICE_SUBJECT,
                       d_located.PRICE_FEATURES,
                       [d_located.price_features(kind, want) for kind, want in zip(price_kinds(), wants)])
        return Verdict.of(failures, 3, f"threshold {toy[2]:.4g} on the toy, and right on unseen rows, binding floors "
                          "included", toy_thresholds=toy, located=said,
                          findings=matched(of_piece(MISTAKES, "price_exploit"), cases, data["out"]))


def price_kinds() -> list[str]:  # the kind of each row of price_cases, in order
    return ["toy prompt"] * N_PROMPTS + PRICE_ROW_KINDS


def price_row(row: int) -> str:
    """Row ``row`` of ``price_cases`` named by what it is, as a student can find it (the rows past the toy are unseen)."""
    kind = price_kinds()[row]
    if kind == "toy prompt":
        return f"on the toy's prompt {row}"
    if kind.startswith("logit tie earning "):
        return f"on a row with a logit tie earning {kind.removeprefix('logit tie earning ')}"
    return {"random": "on a random row", "floor binds": "on a row whose floor binds",
            "floor does not bind": "on a row whose floor does not bind",
            "cap equals floor": "on a row whose cap equals its floor"}[kind]
