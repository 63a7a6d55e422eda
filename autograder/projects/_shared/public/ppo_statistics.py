"""What Project A's ppo_update returns beside the update it makes: its statistics, each the mean over the last
epoch's minibatches of what the minibatch's forward pass gives before its step (A's README). How A.update reads them
from the student's return and compares them with the reference's, and the ladder of small updates whose smallest
failing rung a failing row shows. Final grading and the students' checker both read them from here."""

from __future__ import annotations

import math

import numpy as np

from capstone_check.located import SMALLEST, shown
from capstone_check.student import describe
from rlkit.cartpole import N_ACTIONS, OBS_DIM
from rlkit.categorical import log_prob
from rlkit.nn import Adam, flatten, mlp_forward, mlp_init

STATISTICS = {  # each key ppo_update returns -> what it is, as a failing row says it (short: a recognised mistake's
    # sentence follows it in the students' checker)
    "approx_kl": "the last epoch's mean of (rho - 1) - log rho",
    "clip_fraction": "the last epoch's share of |rho - 1| > clip_eps",
    "entropy": "the last epoch's mean entropy",
    "value_loss": "the last epoch's mean value loss",
}
NOT_A_DICT = "not_a_dict"  # the key under which ``read`` says what came back instead of a dict


def read(value) -> dict:
    """The statistics ppo_update returned, as plain data: per key it holds, a finite number, or what it is instead
    (a text); anything but a dict is said under ``NOT_A_DICT``."""
    if not isinstance(value, dict):
        return {NOT_A_DICT: describe(value)}
    out = {}
    for key in STATISTICS:
        if key not in value:
            continue
        try:
            number = float(np.asarray(value[key], dtype=float).item())
        except Exception:  # noqa: BLE001 - whatever the student's object raises, it is not a number
            out[key] = describe(value[key])
            continue
        out[key] = number if math.isfinite(number) else str(number)
    return out


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def right(key: str, got, want, tolerance: float) -> bool:
    """Whether statistic ``key`` is the reference's: within ``tolerance`` (absolute below 1, relative above); the
    clip fraction (``want`` its least and its most, as rounding at the clip's edge decides) within its range."""
    if not _number(got):
        return False
    if key == "clip_fraction":
        low, high = want
        return low - tolerance <= got <= high + tolerance
    return abs(got - want) <= tolerance * max(1.0, abs(want))


def expected(key: str, want, digits: int = 6) -> str:
    if key == "clip_fraction":
        low, high = want
        return f"{low:.{digits}g}" if low == high else f"{low:.{digits}g} to {high:.{digits}g}"
    return f"{want:.{digits}g}"


def found(got, digits: int = 6) -> str:
    if _number(got):
        return f"{got:.{digits}g}"
    return str(got)[:80]


def wrong(got: dict, want: dict, tolerance: float) -> list[str]:
    """The statistics of ``got`` (``read``'s, untrusted in the grader: any other form is wrong) that are not
    ``want``'s."""
    if not isinstance(got, dict) or NOT_A_DICT in got:
        return list(STATISTICS)
    return [key for key in STATISTICS if not right(key, got.get(key), want[key], tolerance)]


def failures(got: dict, want: dict, tolerance: float) -> list[str]:
    """A failure per statistic that departs, named, with what it is."""
    if not isinstance(got, dict):
        return ["ppo_update's statistics could not be read"]
    if NOT_A_DICT in got:
        return [f"ppo_update returned {found(got[NOT_A_DICT])}, expected a dict with keys {', '.join(STATISTICS)}"]
    said = []
    for key in wrong(got, want, tolerance):
        if key not in got:
            said.append(f"ppo_update's statistics have no '{key}' ({STATISTICS[key]})")
        else:
            said.append(f"ppo_update's '{key}' is {found(got[key])}, expected {expected(key, want[key])} "
                        f"({STATISTICS[key]})")
    return said


# ------------------------------------------------------------------------------------------- the ladder of updates

# (samples, epochs, minibatches) per rung, smallest first: one minibatch whose statistics are its starting ratios'
# alone, then two minibatches (a sum over the epoch is twice the mean), then a second epoch (the last one counts)
RUNGS = [(4, 1, 1), (8, 1, 2), (8, 2, 2)]
RATIOS = [0.7, 0.95, 1.1, 1.4, 0.85, 1.3, 1.05, 0.6]  # each sample's ratio before the first step
RUNG_CONFIG = {"clip_eps": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5}
RUNG_LR = 0.05
RUNG_SEED = 0  # the rng ppo_update is given on every rung


def rung_case(samples: int, epochs: int, minibatches: int) -> tuple[dict, dict, dict]:
    """(agent, batch, config values) of a rung: small float64 networks, and stored log-probs that put each sample's
    ratio at ``RATIOS`` before the first step."""
    rng = np.random.default_rng(2026)
    agent = {"actor": mlp_init([OBS_DIM, 4, N_ACTIONS], rng, 1.0, dtype=np.float64),
             "critic": mlp_init([OBS_DIM, 4, 1], rng, 1.0, dtype=np.float64)}
    obs = rng.normal(0, 1, (samples, OBS_DIM))
    actions = rng.integers(0, N_ACTIONS, samples)
    values = mlp_forward(agent["critic"], obs)[0][:, 0]
    batch = {"obs": obs, "actions": actions,
             "logp": log_prob(mlp_forward(agent["actor"], obs)[0], actions) - np.log(RATIOS[:samples]),
             "advantages": rng.normal(0, 1, samples), "returns": values + rng.normal(0, 1, samples), "values": values}
    return agent, batch, {"epochs": epochs, "minibatches": minibatches, **RUNG_CONFIG}


def rung_text(samples: int, epochs: int, minibatches: int) -> str:
    return (f"ppo_update on {samples} samples whose ratios start at {shown(np.array(RATIOS[:samples]))}, clip_eps "
            f"{RUNG_CONFIG['clip_eps']:g}, {epochs} epoch{'s' * (epochs > 1)} of {minibatches} "
            f"minibatch{'es' * (minibatches > 1)}")


def rung_optimizer(agent: dict) -> Adam:
    return Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=RUNG_LR)


def on_rungs(update, make_config) -> list[dict | None]:
    """``read`` of what ``update`` (the student's ppo_update) returns on each rung, or None where it raises: a rung
    is shown, never graded, so it fails nothing by itself. ``make_config(values)`` is the student's Config."""
    out = []
    for rung in RUNGS:
        agent, batch, values = rung_case(*rung)
        try:
            out.append(read(update(agent, rung_optimizer(agent), batch, make_config(values),
                                   np.random.default_rng(RUNG_SEED))))
        except Exception:  # noqa: BLE001 - any failure on a rung only means the rung is shown as raising
            out.append(None)
    return out


def smallest(got: list, want: list[dict], tolerance: float) -> str:
    """The smallest rung on which the student's statistics depart, as a sentence (its departing statistics returned
    and expected); "" when none does."""
    for rung, g, w in zip(RUNGS, got, want):
        if g is None:
            return f"{SMALLEST}{rung_text(*rung)} raised an exception."
        keys = wrong(g, w, tolerance)
        if not keys:
            continue
        if NOT_A_DICT in g or not isinstance(g, dict):
            return f"{SMALLEST}{rung_text(*rung)} returned no dict of statistics."
        returned = ", ".join(f"{key} {found(g.get(key, 'missing'), 4)}" for key in keys)
        return (f"{SMALLEST}{rung_text(*rung)} returned {returned}; expected "
                f"{', '.join(f'{key} {expected(key, w[key], 4)}' for key in keys)}.")
    return ""


def ladder_failures(got: list, want: list[dict], tolerance: float) -> list[str]:
    """The rungs are calls the check makes too: one that raises, or whose statistics depart, fails the row even
    where A.update's own case passes (one epoch's statistics, say, are never reached by its four)."""
    for rung, g, w in zip(RUNGS, got, want):
        if g is None:
            return [f"ppo_update raised on a smaller update ({rung_text(*rung)})"]
        if wrong(g, w, tolerance):
            return [f"ppo_update's statistics depart on a smaller update ({rung_text(*rung)})"]
    return []
