"""Project B's checks of the switches and the statistics: the student's outputs against the reference's, recorded
at release on the grader's fixed inputs; the defaults against the student's own Project A run."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..._shared.public import ppo_statistics
from capstone_check.student import StudentError, as_array, as_float, describe
from capstone_check.values import close, decode
from capstone_check.verdict import Verdict
from rlkit.nn import flatten


def details_class(student):
    cls = getattr(student.module("details"), "Details", None)
    if cls is None or not dataclasses.is_dataclass(cls):
        raise StudentError("expected the dataclass `Details` in details.py (it is given in the stub)", "missing")
    return cls


def student_details(student, d: dict):
    """The student's ``Details`` with every field set explicitly by the check."""
    try:
        return details_class(student)(**d)
    except TypeError as exc:
        raise StudentError(f"Details({', '.join(d)}) failed: {exc}; keep the nine fields of the stub",
                           "invalid") from None


def config_with(student, **values):
    try:
        return student.module("ppo").Config(**values)
    except (AttributeError, TypeError) as exc:
        raise StudentError(f"ppo.Config({', '.join(values)}) failed: {exc}; ppo.py should be your Project A module",
                           "invalid") from None


def defaults(student, spec: dict) -> Verdict:
    """B.defaults in the students' checker: the row as final grading's, and where only the two runs part, whether
    they part with the course's hyperparameters too (what the course's runs are predicted from)."""
    collected = collect_defaults(student, spec)
    verdict = judge_defaults(spec, collected)
    if verdict.fraction < 1 and not _wrong_defaults(spec, collected) and "trained" in spec:
        verdict.basis = _same_runs(training_runs(student, spec, spec["trained"]["config"]), spec["bar"]["tolerance"])
    return verdict


def collect_defaults(student, spec: dict) -> dict:
    """The defaults of the student's ``Details`` (a value other than a bool by its repr) and the parameters each of
    ``ppo.train`` and ``details.train`` leaves under the spec's config."""
    found = {f.name: f.default for f in dataclasses.fields(details_class(student))}
    return {"defaults": {k: v if isinstance(v, bool) else repr(v) for k, v in found.items()},
            "runs": training_runs(student, spec, spec["config"])}


def training_runs(student, spec: dict, values: dict) -> dict:
    """Per module, ppo and details, the parameters its ``train`` leaves under config ``values``."""
    from rlkit.cartpole import make_envs

    bar, config = spec["bar"], config_with(student, **values)
    runs = {}
    for module in ("ppo", "details"):
        agent, _ = student.fn("train", module)(make_envs(bar["num_envs"]), bar["n_updates"], bar["n_steps"],
                                               spec["seed"], config)
        runs[module] = flatten([agent["actor"], agent["critic"]])
    return runs


def judge_defaults(spec: dict, collected) -> Verdict:
    """The defaults against Project A's choices, and the two runs against each other (``collected``: untrusted where
    another process sent it)."""
    if not isinstance(collected, dict) or not isinstance(collected.get("defaults"), dict) \
            or not isinstance(collected.get("runs"), dict):
        raise StudentError("the defaults and runs collected are not the check's", "invalid")
    failures, wrong = [], _wrong_defaults(spec, collected)
    if wrong:
        failures.append("Details should default to Project A's choices: " + ", ".join(f"{k} = {v}"
                                                                                       for k, v in wrong.items()))
    if not _same_runs(collected["runs"], spec["bar"]["tolerance"]):
        failures.append(f"details.train(..., config, Details()) and ppo.train(..., config) part within "
                        f"{spec['bar']['n_updates']} updates ({spec['seed_shown']}, every config value off its "
                        "default): a default changes something, or one reads a value the other hard-codes (the "
                        "order of random draws counts too)")
    return Verdict.of(failures, 2, "Details() is Project A: same defaults, same weights as ppo.train")


def _wrong_defaults(spec: dict, collected: dict) -> dict:
    return {k: v for k, v in spec["details"].items() if collected["defaults"].get(k) is not v}


def _same_runs(runs, tolerance: float) -> bool:
    """Whether the two runs' parameters are one another's within ``tolerance`` (the same math in another order)."""
    a, b = runs.get("ppo"), runs.get("details")
    return isinstance(a, list) and isinstance(b, list) and _all_close(b, a, tolerance)


def _all_close(got, want, tolerance) -> bool:
    return isinstance(got, list) and len(got) == len(want) and all(close(g, w, tolerance) for g, w in zip(got, want))


STATISTICS = "statistics"  # beside "update" in a setting's outputs: what ppo_update returned, part of that output


def outputs_compared(outputs: dict) -> list[str]:
    """The outputs of a setting compared as arrays (the statistics are compared with ``update``)."""
    return [k for k in outputs if k != STATISTICS]


def kind_of(want: dict, name: str) -> str:
    """The output in which flipping switch ``name`` shows in the reference's outputs ``want`` (per setting)."""
    return next(k for k in outputs_compared(want[name]) if not _all_close(want[name][k], want["baseline"][k], 1e-12))


def departure(got: dict, want: dict, kind: str, tolerance: float) -> str | None:
    """None where one setting's output ``kind`` is the reference's; else what the failure adds: "" when the output
    itself departs, or the statistics ppo_update returned that depart, named, when only they do."""
    if not _all_close(got[kind], want[kind], tolerance):
        return ""
    keys = ppo_statistics.wrong(got.get(STATISTICS), want[STATISTICS], tolerance) if kind == "update" else []
    return f" (the statistics it returns: {', '.join(keys)})" if keys else None


def unchanged(got: dict, baseline: dict, kinds) -> bool:
    """Whether a setting's outputs ``kinds`` are the baseline's to the last bits."""
    return all(_all_close(got[k], baseline[k], 1e-12) for k in kinds)


def setting_outputs(student, spec: dict, d: dict) -> dict:
    """What each switch's function of the student gives under details ``d`` on the spec's inputs."""
    c, seed, inputs = spec["constants"], spec["seed"], spec["inputs"]
    details, out = student_details(student, d), {}
    config = config_with(student, hidden=c["hidden"])
    agent = student.fn("init_agent", "details")(np.random.default_rng(seed), config, details)
    out["init"] = flatten([agent["actor"], agent["critic"]])
    agent, gradients = decode(inputs["agent"]), decode(inputs["gradients"])
    optimizer = student.fn("make_optimizer", "details")(agent, config_with(student, **c["optimizer"]), details)
    for g in gradients:
        optimizer.step(g)
    out["optimizer"] = flatten([agent["actor"], agent["critic"]])
    config, fn = config_with(student, lr=c["optimizer"]["lr"]), student.fn("learning_rate", "details")
    out["learning_rate"] = [as_float(fn(u, c["n_updates"], config, details), "learning_rate")
                            for u in range(c["n_updates"])]
    segment = decode(inputs["segment"])
    result = student.fn("advantages_and_returns", "details")(segment, config_with(student, gamma=c["gamma"],
                                                                                   lam=c["lam"]), details)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise StudentError(f"advantages_and_returns should return (advantages, returns), found {describe(result)}",
                           "invalid")
    # compared where the rollout marks the step valid: a reset step never enters a batch (as the grader compares)
    out["advantages"] = [as_array(r, segment.rewards.shape, "advantages_and_returns")[segment.valid] for r in result]
    agent, batch = decode(inputs["update"])
    optimizer = _grader_adam(agent, c["update_optimizer"])
    returned = student.fn("ppo_update", "details")(agent, optimizer, batch, config_with(student, **c["update"]),
                                                   details, np.random.default_rng(seed))
    out["update"] = flatten([agent["actor"], agent["critic"]])
    return {**{k: [np.asarray(v, dtype=float) for v in values] for k, values in out.items()},
            STATISTICS: ppo_statistics.read(returned)}


def _grader_adam(agent, c: dict):
    from rlkit.nn import Adam

    return Adam(flatten([agent["actor"], agent["critic"]]), lr=c["lr"], eps=c["adam_eps"])


BASELINE_DIFFERS = "with Details() differs from the reference (Project A's behaviour), so the switch cannot be judged"


def switch_problem(got: dict, want: dict, name: str, kind: str, where: str, tolerance: float) -> str | None:
    """What is wrong with switch ``name`` (its output ``kind``, in function ``where``) given every setting's outputs
    (``got``, the student's; ``want``, the reference's), or None: final grading's rule and the students' check's."""
    others = [k for k in outputs_compared(want[name]) if k != kind and not unchanged(got[name], got["baseline"], [k])]
    baseline = departure(got["baseline"], want["baseline"], kind, tolerance)
    if baseline is not None:
        return f"{where} {BASELINE_DIFFERS}{baseline}"
    if unchanged(got[name], got["baseline"], [kind]):
        return f"flipping it changes nothing in {where}"
    flipped = departure(got[name], want[name], kind, tolerance)
    if flipped is not None:
        return f"flipped, {where} changes, but not as the reference's does{flipped}"
    if others:
        return f"flipping it also changes {', '.join(others)}, which it should leave alone"
    return None
