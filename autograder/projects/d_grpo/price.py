"""Project D's D.price_exploit: the beta at which the toy's hedge stops paying, on the toy's prompts and on rows the
student has not seen (random ones, binding floors, logit ties, caps equal to their floors)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from autograder.checks import Bar
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.encode import call, locate, located_call, out_float
from autograder.projects.d_grpo import oracle
from autograder.projects.d_grpo.mistakes import MISTAKES
from autograder.projects.d_grpo.public import located as d_located
from rlkit.toy import CONTAINS_ANSWER, HEDGE, N_PROMPTS, N_RESPONSES, THETA_REF


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


def near_floor_row(rng):
    """A row whose floor is set by a response only half a logit below the exploit that earns 1/16 more: it sets the
    floor (-1/16) / (-1/2) = 1/8, under every cap a dyadic row can have (at least (1 - 3/8) / 2), and no verdict of its
    own, so the price is the cap. A test of which responses make the row infeasible that reaches below the exploit's
    logit (``>= -1`` for ``>= 0``) returns 0 here; the rows before it need not hold such a response."""
    logits, rewards, exploit = dyadic_row(rng)
    rewards[np.flatnonzero(logits == logits[exploit] - 0.5)[0]] = rewards[exploit] + 1 / 16
    return logits, rewards, exploit


# The kinds of row price_cases draws, in its order after the toy's four prompts: every seed draws every kind, so the
# public seeds show a student each kind that final grading's seeds can. A kind added later is drawn after the others,
# so the rows before it are as they were.
PRICE_ROW_KINDS = (["random"] * 12 + ["floor binds", "floor does not bind"] * 2
                   + [f"logit tie earning {earns}" for earns in TIES] + ["cap equals floor"] * 2
                   + ["floor half a logit below"])


def price_cases(seed: int):
    """The toy's four prompts first, then rows the student has not seen (``PRICE_ROW_KINDS``): random ones, two whose
    floor binds and two whose floor does not, three logit ties with the exploit (the tied response earning the same,
    more and less), two rows whose cap equals their floor, and a row floored by a response half a logit below the
    exploit, on every seed."""
    cases = [(THETA_REF[x], CONTAINS_ANSWER[x], HEDGE) for x in range(N_PROMPTS)]
    rng = np.random.default_rng(seed)
    for i in range(12):
        logits, rewards = rng.normal(0, 2, N_RESPONSES), rng.choice([0.0, 0.5, 1.0], N_RESPONSES)
        exploit = int(rng.integers(N_RESPONSES))
        if i % 3:
            rewards[exploit] = rewards.max() + 0.5
        cases.append((logits, rewards, exploit))
    cases += [floor_rows(rng, binding) for binding in (True, False, True, False)]
    cases += [tie_row(rng, earns) for earns in TIES] + [cap_equals_floor_row(rng), cap_equals_floor_row(rng)]
    return cases + [near_floor_row(rng)]


class PriceExploit(CallsCheck):
    id = "D.price_exploit"
    name = "Exercise 4: the beta that prices the loophole (chapter: 1/4)"
    mistakes = MISTAKES

    class Bar(Bar):
        threshold_range: tuple[float, float] = Field(description="where the toy's price must fall (the chapter: 1/4)")
        tolerance: float = Field(description="largest gap from the reference's price, relative above 1")

    def spec(self, ctx) -> dict:
        low, high = ctx.bar.threshold_range
        calls = []
        for row, ((logits, rewards, exploit), kind) in enumerate(zip(price_cases(ctx.seed), price_kinds())):
            want = oracle.price_exploit(logits, rewards, exploit)
            entry = call("price_exploit", [logits, rewards, exploit],
                         out_float(want, ctx.bar.tolerance, "exact_or_close", finite=True),
                         f"price_exploit {price_row(row)}", "rows")
            entry = located_call(entry, d_located.price_features(kind, want), ("price", None))
            if row in (2, 3):  # 8*8 and 9*9: only the KL penalty stands in the hedge's way
                entry["range"] = {"bounds": [low, high], "group": f"toy {row}",
                                  "message": f"on prompt {row} of the toy the hedge should stop paying near beta = 1/4"}
            calls.append(entry)
        return {"kind": "calls", "calls": calls, "total": 3,
                "passed": "right on the toy and on unseen rows, binding floors included",
                **locate(self.id, ctx.bar.tolerance, {"price": (d_located.PRICE_SUBJECT, d_located.PRICE_FEATURES)},
                         raising=True)}


def price_kinds() -> list[str]:  # the kind of each row of price_cases, in order
    return ["toy prompt"] * N_PROMPTS + PRICE_ROW_KINDS


def price_row(row: int) -> str:
    """Row ``row`` of ``price_cases`` named by what it is: past the toy's prompts, a student never sees the rows."""
    kind = price_kinds()[row]
    if kind == "toy prompt":
        return f"on the toy's prompt {row}"
    if kind.startswith("logit tie earning "):
        return f"on a row with a logit tie earning {kind.removeprefix('logit tie earning ')}"
    return {"random": "on a random row", "floor binds": "on a row whose floor binds",
            "floor does not bind": "on a row whose floor does not bind",
            "cap equals floor": "on a row whose cap equals its floor",
            "floor half a logit below": "on a row floored by a response half a logit below the exploit"}[kind]
