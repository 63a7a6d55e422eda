"""Project C's expected values for the students' checker: the grader's crafted data and the oracle's values on it,
and the fresh runs of the public seeds with their labels (final grading trains its own with the grading seeds)."""

from __future__ import annotations

import numpy as np

from autograder.findings import computed, of_piece
from autograder.projects._shared.encode import call, locate, located_call, mistakes_as_values, out_array, out_float
from capstone_check.located import of_kinds
from autograder.projects.c_diagnosis import boundary, edges, fresh, lines, oracle, pieces, run_plan
from autograder.projects.c_diagnosis.mistakes import MISTAKES
from capstone_check.kinds import c_diagnosis as checker, c_located


def located_as(check: str, tol: float, kinds: dict, *pieces_: str) -> dict:
    """The spec's ``locate`` for diagnostics whose cases are each of one kind (``kinds``: kind -> where)."""
    return locate(check, tol, {piece: (c_located.SUBJECTS[piece], kinds) for piece in pieces_})


def entropy(ctx) -> dict:
    tol, calls = ctx.bar.tolerance, []
    cases = list(pieces.entropy_logits_cases(ctx.seed))
    for (kind, logits), masks in zip(cases, of_kinds([kind for kind, _ in cases])):
        label = "one-hot entropy" if kind == "one-hot" else "entropy"
        calls.append(located_call(call("policy_entropy", [logits], out_array(oracle.entropy_nats(logits), tol,
                                                                            "defined", False),
                                       f"policy_entropy ({kind} logits)", label), masks, ("policy_entropy", None)))
        finite = np.where(np.isinf(logits), 0.0, logits)
        calls.append(located_call(call("logit_magnitude", [finite], out_array(oracle.logit_magnitude(finite), tol,
                                                                              "defined", False),
                                       f"logit_magnitude ({kind} logits)", "magnitude under a shift"
                                       if kind == "shifted" else "magnitude"), masks, ("logit_magnitude", None)))
    return {"kind": "calls", "calls": calls, "total": 4,
            "passed": "entropy in nats (one-hot rows included) and logit magnitude match",
            **located_as("C.entropy", tol, c_located.ENTROPY_KINDS, "policy_entropy", "logit_magnitude")}


def kl_clip(ctx) -> dict:
    tol, calls = ctx.bar.tolerance, []
    cases = pieces.ratio_cases(ctx.seed)
    kinds = of_kinds(["unchanged" if np.all(new == old) else "changed" for new, old, _ in cases])
    for (new, old, eps), masks in zip(cases, kinds):
        label = "KL of an unchanged policy" if np.all(new == old) else "KL"
        calls.append(located_call(call("approx_kl", [new, old], out_float(oracle.approx_kl(new, old), tol, "defined",
                                                                          False), "approx_kl", label),
                                  masks, ("approx_kl", None)))
        calls.append(located_call(call("clip_fraction", [new, old, eps], out_float(
            oracle.clip_fraction(new, old, eps), tol, "defined", False), f"clip_fraction at eps = {eps}", "clip"),
            masks, ("clip_fraction", None)))
    return {"kind": "calls", "calls": calls, "total": 3,
            "passed": "approximate KL and clip fraction match, 0 for an unchanged policy",
            **located_as("C.kl_clip", tol, c_located.RATIO_KINDS, "approx_kl", "clip_fraction")}


def explained_variance(ctx) -> dict:
    cases = list(pieces.variance_cases(ctx.seed))
    calls = [located_call(call("explained_variance", [v, r], out_float(oracle.explained_variance(v, r),
                                                                       ctx.bar.tolerance, "defined", False),
                               f"explained_variance ({kind})", kind if kind == "constant returns" else "ordinary"),
                          masks, ("explained_variance", None))
             for (kind, v, r), masks in zip(cases, of_kinds([kind for kind, _, _ in cases]))]
    return {"kind": "calls", "calls": calls, "total": 2, "passed": "matches, and is NaN for constant returns",
            **located_as("C.explained_variance", ctx.bar.tolerance, c_located.VARIANCE_KINDS, "explained_variance")}


def td_q(ctx) -> dict:
    tol, calls = ctx.bar.tolerance, []
    cases = list(pieces.td_cases(ctx.seed))
    kinds = of_kinds(["negative Q" if (q < 0).any() else "positive Q" for _, q, _, _ in cases])
    for (td, q, g, gamma), masks in zip(cases, kinds):
        want_td, want_q = oracle.td_error_stats(td, q), oracle.q_overestimation(q, g, gamma)
        for key in pieces.TD_KEYS:
            calls.append(located_call(call("td_error_stats", [td, q], {"dict": {
                k: out_float(want_td[k], tol, "defined", False) for k in pieces.TD_KEYS}},
                f"td_error_stats at gamma = {gamma}", f"td_error_stats['{key}']", pick=key),
                masks, (f"td_error_stats:{key}", key)))
        for key in pieces.Q_KEYS:
            calls.append(located_call(call("q_overestimation", [q, g, gamma],
                                           {"dict": {k: out_float(want_q[k], tol, "defined", False)
                                                     for k in pieces.Q_KEYS}},
                                           f"q_overestimation at gamma = {gamma}", f"q_overestimation['{key}']",
                                           pick=key), masks, (f"q_overestimation:{key}", key)))
    return {"kind": "calls", "calls": calls, "total": 6, "passed": "TD-error statistics and overestimation match",
            **located_as("C.td_q", tol, c_located.TD_KINDS, *(f"td_error_stats:{k}" for k in pieces.TD_KEYS),
                         *(f"q_overestimation:{k}" for k in pieces.Q_KEYS))}


def return_drop(ctx) -> dict:
    cases = list(pieces.curve_cases(ctx.seed))
    calls = [located_call(call("return_drop", [curve], out_float(oracle.return_drop(curve), ctx.bar.tolerance,
                                                                 "defined", False),
                               f"return_drop ({kind} curve)", "ordinary" if kind == "ordinary" else "edge"),
                          masks, ("return_drop", None))
             for (kind, curve), masks in zip(cases, of_kinds([kind for kind, _ in cases]))]
    return {"kind": "calls", "calls": calls, "total": 2,
            "passed": "matches, gaps, a final peak and an empty curve included",
            **located_as("C.return_drop", ctx.bar.tolerance, c_located.CURVE_KINDS, "return_drop")}


def fresh_runs(ctx) -> dict:
    """The public seeds' fresh runs that final grading would grade (trained without a course secret: their order and
    training seeds are as public as the seeds), what each is, and each moved to the fresh runs' edges (``edges``): the
    same runs ``autograder check`` labels on a course without a secret, and how far from them final grading's runs of
    each kind may lie."""
    logs, truth = [], []
    for seed in ctx.seeds:
        for run, log in zip(run_plan.fresh_plan(seed, None), fresh.unbundle(fresh.fresh_logs(seed, None))):
            if lines.graded_fresh(log, run.label):  # the README leaves it open, it lies near a line, or the lines
                logs.append(log)  # give it another label: final grading leaves it out too
                truth.append([run.label, run.severity])
    at_edges = [moved_fields(edges.at_the_edges(label, log), log) for log, (label, _) in zip(logs, truth)]
    return {"kind": "c_fresh_runs", "labels": list(run_plan.LABELS), "truth": truth, "logs": "C.fresh_runs.npz",
            "edges": "C.fresh_runs.edges.npz",
            "_files": {"C.fresh_runs.npz": fresh.bundle(logs), "C.fresh_runs.edges.npz": fresh.bundle(at_edges)},
            **labelled_by_mistakes(logs)}


def moved_fields(moved: dict, log: dict) -> dict:
    """The fields of a log at the edges that differ from its run's (the checker lays them over the run's log)."""
    return {key: value for key, value in moved.items() if not np.array_equal(value, log[key])}


def at_the_lines(ctx) -> dict:
    """Every public seed's logs at the course's lines and what each is: the evidence C.diagnose_rules is predicted
    from. Final grading builds its own from one grading seed's fresh runs, in an order the course secret shuffles; a
    diagnostic wrong only on some runs' logs (a signed mean of TD errors) labels some seeds' logs at the lines wrong
    and others' right, so the kit asks all of its seeds."""
    logs = [log for seed in ctx.seeds for log in fresh.unbundle(boundary.boundary_logs(seed, None))]
    arrays = {f"run_{i}/{key}": value for i, log in enumerate(logs) for key, value in log.items()}
    return {"probe": {"kind": "c_at_the_lines", "labels": list(run_plan.LABELS), "seeds": len(ctx.seeds),
                      "truth": [b.label for seed in ctx.seeds for b in boundary.plan(seed, None)],
                      "logs": "C.diagnose_rules.npz", **labelled_by_mistakes(logs)},
            "_files": {"C.diagnose_rules.npz": arrays}}


def labelled_by_mistakes(logs: list[dict]) -> dict:
    """What each known mistake of ``diagnose`` labels ``logs``, as indices into the labels (final grading names one
    when the student's labels are all its own), with the mistakes' sentences; a mistake that cannot label every log
    is left out."""
    outputs = {}
    for mistake in of_piece(MISTAKES, "diagnose"):
        labels = [computed(mistake.variant, log) for log in logs]
        if all(label in run_plan.LABELS for label in labels):
            outputs[mistake.id] = [run_plan.LABELS.index(label) for label in labels]
    return mistakes_as_values(MISTAKES, outputs)


def own_labels(ctx) -> dict:
    return {"probe": {"kind": "c_own_labels", "labels": list(run_plan.LABELS), "names": list(run_plan.NAMES)}}


# the checker's function that runs each kind of check SPECS and the probes make (a "calls" check runs the student's
# functions)
KINDS = {"c_fresh_runs": checker.fresh_runs, "c_at_the_lines": checker.at_the_lines, "c_own_labels": checker.own_labels}

SPECS = {"C.entropy": entropy, "C.kl_clip": kl_clip, "C.explained_variance": explained_variance, "C.td_q": td_q,
         "C.return_drop": return_drop, "C.fresh_runs": fresh_runs}
# What final grading adds that this kit cannot check, and the public evidence each row is predicted from (``probe``).
# C.diagnose_rules labels logs built at the lines from the fresh runs final grading trains; every public seed's are
# built here, and `diagnose` on them predicts the row, whatever diagnostic fails its own check: a wrong diagnostic
# matters to the row only where it moves a label at the lines (entropy in bits never does; a signed mean of TD errors
# does on most seeds' logs, the smallest public seed's not among them, so all public seeds are asked). Which fault each
# of the student's own logs holds follows from the course secret, so nothing here tells whether `my_labels` names them
# right: C.own_labels is predicted from how many of the three `my_labels` names as `diagnose` does. The student's logs
# are fresh runs of the three faults at the fresh runs' severities, not logs at the lines, so that evidence holds while
# `diagnose` labels the public fresh runs right: C.own_labels ``trusts`` C.fresh_runs (agreeing with a diagnosis shown
# wrong shows nothing). When it fails, the student's logs still hold one of each fault (``one_of_each``): a fault whose
# public runs `diagnose` labels right every time earns its point, one it labels wrong every time does not, one it
# labels both ways may go either way (``prediction.kind_bounds``).
# benchmarks/kit_prediction.py measured both choices on planted bugs and generated mutants (docs/benchmarks.md).
FINAL_GRADING = {
    "C.diagnose_rules": {"adds": "left to final grading, which builds runs at the lines of the diagnose rules from its "
                                 "own fresh runs; it credits them only if `diagnose` labels fresh runs right, as "
                                 "checked by", "probe": at_the_lines},
    "C.own_labels": {"adds": "left to final grading, which knows what the agents of your own logs are (made from your "
                             "student id and the course secret, not in this kit): predicted from how many of them "
                             "`my_labels` names as your `diagnose` does", "probe": own_labels,
                     "trusts": ("C.fresh_runs",), "one_of_each": list(run_plan.FAULTS),
                     "unsure": ", so `my_labels` agreeing with your `diagnose` shows nothing"}}
