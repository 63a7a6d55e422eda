"""Project B's checks of the switches and the statistics: the student's outputs against the reference's, recorded
at release on the grader's fixed inputs; the defaults against the student's own Project A run."""

from __future__ import annotations

import dataclasses

import numpy as np

from capstone_check.calls import recognised_parts, with_findings
from capstone_check.kinds import a_statistics
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
    found = {f.name: f.default for f in dataclasses.fields(details_class(student))}
    failures = []
    wrong = {k: v for k, v in spec["details"].items() if found.get(k) is not v}
    if wrong:
        failures.append("Details should default to Project A's choices: " + ", ".join(f"{k} = {v}"
                                                                                       for k, v in wrong.items()))
    if not _same_training(student, spec, spec["config"]):
        failures.append(f"details.train(..., config, Details()) and ppo.train(..., config) part within "
                        f"{spec['bar']['n_updates']} updates (seed {spec['seed']}, every config value off its "
                        "default): a default changes something, or one reads a value the other hard-codes (the "
                        "order of random draws counts too)")
    verdict = Verdict.of(failures, 2, "Details() is Project A: same defaults, same weights as ppo.train")
    if failures and not wrong and "trained" in spec:  # the course's runs train with its hyperparameters alone
        verdict.basis = _same_training(student, spec, spec["trained"]["config"])
    return verdict


def _same_training(student, spec: dict, values: dict) -> bool:
    """Whether ppo.train and details.train with Details() give the very same weights under config ``values``."""
    from rlkit.cartpole import make_envs

    bar, runs, config = spec["bar"], {}, config_with(student, **values)
    for module in ("ppo", "details"):
        agent, _ = student.fn("train", module)(make_envs(bar["num_envs"]), bar["n_updates"], bar["n_steps"],
                                               spec["seed"], config)
        runs[module] = [np.asarray(p, dtype=float) for p in flatten([agent["actor"], agent["critic"]])]
    a, b = runs["ppo"], runs["details"]
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


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
    keys = a_statistics.wrong(got.get(STATISTICS), want[STATISTICS], tolerance) if kind == "update" else []
    return f" (the statistics it returns: {', '.join(keys)})" if keys else None


def unchanged(got: dict, baseline: dict, kinds) -> bool:
    """Whether a setting's outputs ``kinds`` are the baseline's to the last bits."""
    return all(_all_close(got[k], baseline[k], 1e-12) for k in kinds)


def _outputs(student, spec: dict, d: dict) -> dict:
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
            STATISTICS: a_statistics.read(returned)}


def _grader_adam(agent, c: dict):
    from rlkit.nn import Adam

    return Adam(flatten([agent["actor"], agent["critic"]]), lr=c["lr"], eps=c["adam_eps"])


def switches(student, spec: dict) -> Verdict:
    got, raised = outputs_by_setting(student, spec)
    want = decode(spec["want"])
    problems = {name: _switch_problem(spec, got, want, name, kind) for name, kind in spec["kinds"].items()
                if not raised.keys() & {name, "baseline"}}
    failures = [f"{name}: {problem}" for name, problem in problems.items() if problem]
    wrong = set(raised) | {"baseline" if problem.endswith(BASELINE_DIFFERS) else name
                           for name, problem in problems.items() if problem}
    # per row that grades runs: whether the switches its runs flip (and the baseline) all pass, none of them raising
    basis = {cid: flipped is not None and not raised.keys() & flipped and (
                 not wrong & flipped or not fails_in_the_courses_runs(student, spec, flipped))
             for cid, flipped in flipped_in_runs(student).items()} if wrong else None
    if raised:  # the row is lost, as final grading loses it, on the first setting that raised
        first = next(iter(raised.values()))
        first.basis = basis
        raise first
    verdict = Verdict.of(failures, len(spec["kinds"]), "all nine switches do what the reference's do, and only that")
    verdict.basis = basis
    return with_findings(verdict, spec, _ignored(spec, got) + recognised_parts(spec, got))


def outputs_by_setting(student, spec: dict) -> tuple[dict, dict]:
    """({setting: the pieces' outputs under it}, {setting: the StudentError it raised}), every setting tried in the
    spec's order: a raise under one setting reaches only the runs that flip it."""
    got, raised = {}, {}
    for label, details in spec["settings"]:
        try:
            got[label] = _outputs(student, spec, details)
        except StudentError as exc:
            raised[label] = exc
    return got, raised


def fails_in_the_courses_runs(student, spec: dict, flipped: set[str]) -> bool:
    """Whether the baseline or a switch the student's runs flip still fails with the course's clip half-width and
    Adam's epsilon (recorded as ``trained``), which every graded run trains with: a value hard-coded at its default
    fails the check's own values only."""
    if "trained" not in spec:
        return True
    c, values = spec["constants"], spec["trained"]["values"]
    at = {**spec, "constants": {**c, "update": {**c["update"], "clip_eps": values["clip_eps"]},
                                "optimizer": {**c["optimizer"], "adam_eps": values["adam_eps"]}}}
    got = {label: _outputs(student, at, d) for label, d in spec["settings"] if label in flipped}
    trained, want = decode(spec["trained"]["want"]), decode(spec["want"])
    want = {label: {**outputs, **trained.get(label, {})} for label, outputs in want.items()}
    if any(departure(got["baseline"], want["baseline"], k, spec["tol"]) is not None
           for k in outputs_compared(want["baseline"])):
        return True
    return any(_switch_problem(spec, got, want, name, spec["kinds"][name]) for name in flipped - {"baseline"}
               if name in spec["kinds"])


def _ignored(spec: dict, got: dict) -> list[str]:
    """The mistakes of the switches whose flipping changes none of the outputs."""
    return [mid for name, mid in spec["ignored"].items()
            if unchanged(got[name], got["baseline"], outputs_compared(got[name]))]


BASELINE_DIFFERS = "with Details() differs from the reference (Project A's behaviour), so the switch cannot be judged"


def _switch_problem(spec: dict, got: dict, want: dict, name: str, kind: str) -> str | None:
    return switch_problem(got, want, name, kind, spec["where"][name], spec["tol"])


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


def flipped_in_runs(student) -> dict[str, set[str] | None]:
    """Per row of final grading, what the runs it grades flip (a switch no run flips is never replayed): B.table's
    the baseline and the details ``conclusion()`` names, B.bar's the baseline and those ``ablated()`` names; None
    where the function does not say."""
    return {"B.table": _with_baseline(student, "conclusion"), "B.bar": _with_baseline(student, "ablated")}


def _with_baseline(student, function: str) -> set[str] | None:
    try:
        names = student.fn(function, "ablation")()
    except StudentError:
        return None
    if not isinstance(names, (list, tuple)) or not all(isinstance(name, str) for name in names):
        return None
    return {"baseline", *names}
