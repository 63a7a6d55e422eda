"""Project A's A.update in both halves: the student's ``ppo_update`` on one recorded case (``collect_update``: the
networks it leaves, the Adam steps it takes, the statistics it returns, the smaller updates of the ladder and the
same update configured as the course's runs are) and how they compare with the reference's (``judge_update``).
Final grading runs the same two (``autograder.projects.a_ppo.update``)."""

from __future__ import annotations

import numpy as np

from capstone_check.calls import flat, recognised, with_findings
from capstone_check.cascade import Probe, explained
from ..._shared.public import ppo_statistics
from .located import RecordingAdam, raised_course, update_course
from .batch import config, parameter_name
from capstone_check.student import StudentError, collected_or_located
from capstone_check.values import close, decode, same
from capstone_check.verdict import Verdict
from rlkit.nn import flatten


def update(student, spec: dict) -> Verdict:
    """A.update, collected and judged in one process; where the update raised, its row is led by where it had
    departed by then, as final grading leads it."""
    return judge_update(spec, collected_or_located(collect_update, update_error_said, student, spec))


def run_update(student, spec: dict, values: dict) -> tuple[dict, RecordingAdam, object]:
    """The student's ``ppo_update`` on the spec's case, configured with ``values``: the networks it leaves, the
    optimizer that recorded its steps and what it returned. A call that raises names the piece it relies on that
    misbehaves on the spec's ``probes``; its ``partial`` holds the steps it had taken."""
    agent, batch_ = decode(spec["agent"]), decode(spec["batch"])
    optimizer = RecordingAdam(flatten(agent["actor"]) + flatten(agent["critic"]), lr=spec["lr"])
    probes = [Probe(*probe) for probe in decode(spec.get("probes", []))]
    try:
        returned = explained(student, "ppo_update", lambda: student.fn("ppo_update")(
            agent, optimizer, batch_, config(student, values), np.random.default_rng(spec["seed"])), probes)
    except StudentError as exc:
        exc.partial = {"steps": optimizer.after, "taken": optimizer.taken}
        raise
    return {net: flatten(agent[net]) for net in ("actor", "critic")}, optimizer, returned


def collect_update(student, spec: dict) -> dict:
    networks, optimizer, returned = run_update(student, spec, spec["config"])
    out = {**networks, "steps": optimizer.after, "taken": optimizer.taken, "statistics": ppo_statistics.read(returned)}
    if "statistics" in spec:
        out["rungs"] = ppo_statistics.on_rungs(student.fn("ppo_update"), lambda values: config(student, values))
    if "trained" in spec:  # configured as the course's runs are: what a failing row's runs are predicted from
        try:
            out["trained"] = run_update(student, spec, spec["trained"]["config"])[0]
        except StudentError:
            out["trained"] = None
    return out


def update_error_said(spec: dict, partial) -> list[dict]:
    """Where the update had departed when the student's code raised, from the steps it had taken (``partial``)."""
    if "steps" not in spec or not isinstance(partial, dict):
        return []
    return raised_course(partial, [np.asarray(s, dtype=float) for s in decode(spec["steps"])], spec["tol"],
                         spec["minibatches"])


def judge_update(spec: dict, collected) -> Verdict:
    """The networks after the update against the reference's, then its statistics and the ladder's (``collected``:
    untrusted where another process sent it)."""
    got = networks(collected, "the update")
    failures = differences(got, decode(spec["want"]), spec["tol"])
    said = where_updated(spec, got, failures, collected.get("steps", []), collected.get("taken", 0))
    statistics, rungs = collected.get("statistics"), collected.get("rungs", [])
    if not isinstance(statistics, dict) or not isinstance(rungs, list):
        raise StudentError("the update's statistics collected are not the check's", "invalid")
    departed, ladder = [], []
    if "statistics" in spec:
        if len(rungs) != len(spec["statistics"]["rungs"]) or not all(r is None or isinstance(r, dict) for r in rungs):
            raise StudentError("the ladder's statistics collected are not the check's", "invalid")
        departed = ppo_statistics.failures(statistics, spec["statistics"]["want"], spec["tol"])
        ladder = [] if departed else ppo_statistics.ladder_failures(rungs, spec["statistics"]["rungs"], spec["tol"])
    numbers = [statistics.get(key) for key in ppo_statistics.STATISTICS]
    found = recognised(spec, [got["actor"], got["critic"]]) if failures else []
    if departed and all(isinstance(number, float) for number in numbers):  # a mistake of the statistics: its four
        found += recognised(spec, numbers)  # numbers, recorded at release
    case = ppo_statistics.smallest(rungs, spec["statistics"]["rungs"], spec["tol"]) if departed else ""
    verdict = Verdict.of(failures + departed + ladder, 3, spec.get("passed", "both networks match the reference "
                         "after the update"), located=said, case=case,
                         note=spec.get("recipe", "") if failures and not said and not found else "")
    if failures and "trained" in spec:  # the same update, configured as the course's runs are: its statistics are
        verdict.basis = trained_right(spec, collected.get("trained"))  # the log's alone: the networks decide
    elif departed or ladder:
        verdict.basis = True
    return with_findings(verdict, spec, found)


def trained_right(spec: dict, trained) -> bool:
    """Whether the update configured as the course's runs are leaves the reference's networks."""
    try:
        return not differences(networks(trained, "the trained update"), decode(spec["trained"]["want"]), spec["tol"])
    except StudentError:  # it raised, or sent something else
        return False


def networks(collected, what: str) -> dict:
    """The actor's and the critic's parameter arrays as collected."""
    if not isinstance(collected, dict) or not all(isinstance(collected.get(net), list) for net in ("actor", "critic")):
        raise StudentError(f"the networks after {what} collected are not the check's", "invalid")
    return {net: [np.asarray(p, dtype=float) for p in collected[net]] for net in ("actor", "critic")}


def differences(got: dict, want: dict, tolerance: float) -> list[str]:
    """Per network that departs, where it first does."""
    return [f"the {net} differs at {where}" for net in ("actor", "critic")
            if (where := first_difference(got[net], want[net], tolerance))]


def first_difference(got, want, tolerance) -> str | None:
    """Where two lists of parameter arrays first differ beyond ``tolerance``, named as a student reads a network:
    "layer 1's weight from input 3 to unit 1: ..."."""
    if len(got) != len(want):
        return f"{len(got)} parameter arrays, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
        if g.shape == w.shape and close(g, w, tolerance):
            continue
        if g.shape != w.shape:
            return f"{parameter_name(k)} have shape {g.shape}, expected {w.shape}"
        if not np.all(np.isfinite(g)):
            return f"{parameter_name(k)} hold NaN or inf"
        index = tuple(int(i) for i in np.unravel_index(np.argmax(np.abs(g - w)), w.shape))
        return (f"{parameter_name(k, index)}: {g[index]:.6g}, expected {w[index]:.6g} ({parameter_name(k)}' largest "
                f"gap: {np.abs(g - w).max():.3g})")
    return None


def where_updated(spec: dict, got: dict, failures: list[str], steps, taken) -> list[dict]:
    """Where a failed update departs, as a row says it: in one network only, at which of its Adam steps (``steps``,
    ``taken``: as the optimizer recorded them) it first departs, or exactly where a related update of the reference's
    recorded in the spec lands."""
    if not failures:
        return []
    departs = [net for net in ("actor", "critic") if any(f.startswith(f"the {net} ") for f in failures)]
    said = list(spec.get("one_network", {}).get(departs[0], [])) if len(departs) == 1 else []
    if "steps" in spec:
        said += update_course(steps if isinstance(steps, list) else [], int(taken) if isinstance(taken, int) else 0,
                              [np.asarray(s, dtype=float) for s in decode(spec["steps"])], spec["tol"],
                              spec["minibatches"])
    return said + [{"id": r["id"], "text": r["text"]} for r in spec.get("related", [])
                   if same(flat([got["actor"], got["critic"]]), r["want"])]
