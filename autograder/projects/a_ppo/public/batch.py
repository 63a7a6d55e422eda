"""Project A's checks in the students' checker.

Its pieces whose inputs are objects (a rollout segment, an agent and its optimizer): the batch, the ratio on
ppo_update's first minibatch, and one whole update, each against values recorded from the reference. Its bar is
``a_bar``'s."""

from __future__ import annotations


import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.student import StudentError, describe
from capstone_check.values import close, decode
from capstone_check.verdict import Verdict
from rlkit.nn import Adam, flatten, mlp_forward


def batch(student, spec: dict) -> Verdict:
    """A.batch: the student's batch of the recorded segment, collected and judged in one process."""
    return judge_batch(spec, collect_batch(student, spec))


def collect_batch(student, spec: dict) -> dict:
    """What ``flatten_batch`` returns on the spec's segment (``args``), each of the batch's ``keys`` as numbers."""
    segment, adv, ret = decode(spec["args"])
    got = student.fn("flatten_batch")(segment, adv.copy(), ret.copy())
    if not isinstance(got, dict):
        raise StudentError(f"flatten_batch: expected a dict, found {describe(got)}", "invalid")
    missing = [key for key in spec["keys"] if key not in got]
    if missing:
        raise StudentError(f"flatten_batch: expected keys {', '.join(spec['keys'])}; missing {', '.join(missing)}",
                           "invalid")
    arrays = {}
    for key in spec["keys"]:
        try:
            arrays[key] = np.asarray(got[key], dtype=float)
        except (TypeError, ValueError):
            raise StudentError(f"flatten_batch()['{key}']: expected numbers, found {describe(got[key])}",
                               "invalid") from None
    return {"arrays": arrays}


def judge_batch(spec: dict, collected) -> Verdict:
    """Each array of the batch (``collected``: untrusted where another process sent it) against the reference's:
    one row per real transition, none for a reset step."""
    arrays = collected.get("arrays") if isinstance(collected, dict) else None
    if not isinstance(arrays, dict) or set(arrays) != set(spec["keys"]):
        raise StudentError("the batch collected does not hold the batch's keys", "invalid")
    got = {key: np.asarray(arrays[key], dtype=float) for key in spec["keys"]}
    segment = decode(spec["args"])[0]
    want, failures, wrong = decode(spec["want"]), [], []
    for key in spec["keys"]:
        if got[key].shape != want[key].shape:
            failures.append(f"'{key}' has shape {got[key].shape}, expected {want[key].shape}: the segment holds "
                            f"{segment.valid.size} steps of which {spec['resets']} are reset steps to drop")
        elif not close(got[key], want[key], 1e-6):
            failures.append(f"'{key}' is not the segment's valid transitions in array[valid] order: "
                            f"{first_row(got[key], want[key])}")
        else:
            continue
        wrong.append(key)
    verdict = Verdict.of(failures, len(spec["keys"]), f"{int(segment.valid.sum())} real transitions, "
                         f"{spec['resets']} reset steps dropped")
    with_findings(verdict, spec, batch_findings(spec, got, segment.valid.size))
    if "trained_on" in spec:  # a key the update does not read leaves the training's updates as they are
        verdict.basis = not set(wrong) & set(spec["trained_on"])
    return verdict


def first_row(got, want) -> str:
    """Where a batch array first differs: "row 3 is 0.52, expected 0.17"."""
    wrong = ~np.isclose(got, want, rtol=1e-6, atol=1e-6)
    row = int(np.argwhere(wrong)[0][0])
    return f"row {row} is {np.array2string(got[row], precision=4)}, expected {np.array2string(want[row], precision=4)}"


def batch_findings(spec: dict, got: dict, steps: int) -> list[str]:
    """The batch's known mistakes: a row for every step of the segment in each array (the reset steps kept, told by
    this rule), or values recorded as one step late."""
    kept = all(np.shape(np.asarray(got[key], dtype=float))[:1] == (steps,) for key in spec["keys"])
    return ["A.batch.reset-steps-kept"] * kept + recognised(spec, got["values"])


def config(student, values: dict):
    config_class = getattr(student.modules[0], "Config", None)
    if config_class is None:
        raise StudentError("expected a class `Config` in ppo.py (it is given in the stub)", "missing")
    try:
        return config_class(**values)
    except TypeError as exc:
        raise StudentError(f"Config({', '.join(values)}) failed: {exc}", "raised") from None


def first_surrogate_call(student, agent, batch_, make_config, seen: dict | None = None) -> dict:
    """Run the student's ppo_update once, recording the arguments of its first clipped_surrogate call (into ``seen``,
    kept by the caller when the update raises); the config it is given is ``make_config()``, made once the call is
    being recorded."""
    module, seen = student.modules[0], {} if seen is None else seen
    original = getattr(module, "clipped_surrogate", None)

    def recording(logits, actions, logp_old, *rest, **kw):
        if not seen:
            seen.update(logits=np.array(logits, float), actions=np.array(actions), logp_old=np.array(logp_old, float))
        return original(logits, actions, logp_old, *rest, **kw)

    module.clipped_surrogate = recording
    try:
        optimizer = Adam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=1e-3)
        student.fn("ppo_update")(agent, optimizer, batch_, make_config(), np.random.default_rng(0))
    finally:
        module.clipped_surrogate = original
    return seen


def from_the_batch(logits, actions, logp_old, agent, batch_) -> bool:
    """Whether every row of the recorded call is a transition of the batch at theta_old: recomputed from the agent
    and the batch, so a ratio of 1 cannot be bought with a made-up first call (final grading asks it too)."""
    at_old = mlp_forward(agent["actor"], batch_["obs"])[0]
    same = ((np.abs(logits[:, None, :] - at_old[None]).max(-1) <= 1e-6 * np.maximum(1, np.abs(at_old).max()))
            & (actions[:, None] == batch_["actions"][None])
            & (np.abs(logp_old[:, None] - batch_["logp"][None]) <= 1e-9))
    return bool(same.any(axis=1).all())


def parameter_name(k: int, entry: tuple[int, ...] | None = None) -> str:
    """The ``k``-th array of a network's flattened layers (weights, then biases, per layer) as a student reads it:
    "layer 1's weights", and with ``entry`` "layer 1's weight from input 2 to unit 9" or "layer 2's bias of unit 3"."""
    layer, weights = k // 2 + 1, k % 2 == 0
    if entry is None or len(entry) != (2 if weights else 1):
        return f"layer {layer}'s {'weights' if weights else 'biases'}"
    return (f"layer {layer}'s weight from input {entry[0]} to unit {entry[1]}" if weights
            else f"layer {layer}'s bias of unit {entry[0]}")
