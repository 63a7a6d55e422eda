"""Project C's fresh runs: ``diagnose`` on the public seeds' runs (recorded at release), counted as final grading
counts them (``share_right``, which final grading scores with too): never by position, so a message does not say which
call was which run. A known mistake of ``diagnose``
is named when the student's labels are all the ones it gives (recorded at release), as final grading names it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.student import StudentError, describe
from capstone_check.verdict import Verdict, failing_message


def logs_of(path: Path) -> list[dict]:
    runs = by_run(path)
    return [runs[i] for i in sorted(runs)]


def by_run(path: Path) -> dict[int, dict]:
    """The fields of ``path`` (keys ``run_<i>/<field>``) per run index."""
    with np.load(path, allow_pickle=False) as data:
        runs: dict[int, dict] = {}
        for key in data.files:
            run, field = key.split("/", 1)
            runs.setdefault(int(run.split("_")[1]), {})[field] = data[key]
    return runs


def by_kind(runs) -> dict[tuple, list[bool]]:
    """``runs`` of (kind, right): per kind of run (fault and severity), whether each of its runs was labelled right."""
    kinds: dict[tuple, list[bool]] = {}
    for kind, right in runs:
        kinds.setdefault(tuple(kind), []).append(bool(right))
    return kinds


def share_right(runs) -> float:
    """The fresh runs' score: the mean over kinds of run of the share of each kind's runs labelled right, so every kind
    weighs the same however many of its runs a draw of seeds holds or grades. Counted per run, one draw's score moved
    with how many runs of a kind lay clear of the lines; per kind, a `diagnose` wrong on whole kinds gets one grade on
    every draw (docs/benchmarks.md)."""
    kinds = by_kind(runs)
    return sum(sum(right) / len(right) for right in kinds.values()) / len(kinds) if kinds else 1.0


def fresh_runs(student, spec: dict) -> Verdict:
    fn, labels = student.fn("diagnose"), []
    for i, log in enumerate(logs_of(Path(spec["_dir"]) / spec["logs"])):
        label = fn(log)
        if not isinstance(label, str) or label not in spec["labels"]:
            raise StudentError(f"diagnose (run {i + 1}): expected one of {', '.join(spec['labels'])}, found "
                               f"{describe(label)}", "invalid")
        labels.append(label)
    wrong = Counter((truth, severity, label) for (truth, severity), label in zip(spec["truth"], labels)
                    if label != truth)
    failures = [f"{n} {truth.replace('_', ' ')} run{'s' * (n > 1)} (severity {severity}) labelled {label}"
                for (truth, severity, label), n in sorted(wrong.items())]
    by_kind = labelled_by_kind([truth for truth, _ in spec["truth"]], labels)
    off = off_at_the_edges(fn, spec)
    spread = seeds_apart(spec, labels, off)
    note = spread_note(spec, spread, labels, off) if spread else ""
    if not failures:
        passed = f"all {len(labels)} fresh runs labelled right"
        return Verdict(1.0, f"{passed}; {note}" if note else passed, by_kind=by_kind, spread=spread)
    score = share_right(((truth, severity), label == truth) for (truth, severity), label in zip(spec["truth"], labels))
    return with_findings(Verdict(score, failing_message(failures, note),
                                 by_kind=by_kind, spread=spread), spec, _mistakes(spec, labels))


def off_at_the_edges(fn, spec: dict) -> set[tuple]:
    """The kinds of run (label and severity) whose logs at the fresh runs' edges ``diagnose`` labels wrong (or cannot
    label): final grading's runs of those kinds may lie where it goes wrong, whatever the public runs show. A log at
    the edges is its run's, read afresh (a `diagnose` may have changed the arrays it was given), with the fields the
    edges' file moves laid over it."""
    if "edges" not in spec:
        return set()
    off, folder = set(), Path(spec["_dir"])
    moved = by_run(folder / spec["edges"])
    for i, ((truth, severity), run) in enumerate(zip(spec["truth"], logs_of(folder / spec["logs"]))):
        log = {**run, **moved.get(i, {})}
        try:
            right = fn(log) == truth
        except StudentError:
            right = False
        if not right:
            off.add((truth, severity))
    return off


def seeds_apart(spec: dict, labels: list[str], off=()) -> list[float] | None:
    """Where final grading's seeds may see a kind of run (label and severity) otherwise than the public seeds do, the
    least and most score they may give: a kind ``diagnose`` labels right on one public seed and wrong on another, or
    right on every public run but wrong at the edges (``off``), counted wrong, then right. None where every kind goes
    one way (the score here is the prediction)."""
    runs = by_kind(((truth, severity), label == truth) for (truth, severity), label in zip(spec["truth"], labels))
    least = sum(all(r) and kind not in off for kind, r in runs.items())
    most = sum(any(r) for r in runs.values())
    return None if least == most else [least / len(runs), most / len(runs)]


def spread_note(spec: dict, spread: list[float], labels: list[str], off=()) -> str:
    """The row's prediction where the public seeds leave it open, and why, said first (short enough to leave a
    failing row room for its first failure)."""
    low, high = (round(spec["points"] * share, 2) for share in spread)
    runs: dict[tuple, list[bool]] = {}
    for (truth, severity), label in zip(spec["truth"], labels):
        runs.setdefault((truth, severity), []).append(label == truth)
    mixed = any(0 < sum(r) < len(r) for r in runs.values())
    edge = sorted(kind for kind in off if kind in runs and all(runs[kind]))
    why = ["labels some kind of run right on one public seed and wrong on another"] if mixed else []
    if edge:
        why.append(f"is right on the public {kinds_said(edge)} runs but not at the edge of final grading's runs: "
                   "compare your rules with the README's lines")
    else:
        why[-1] += ", and final grading labels runs of its own seeds"
    return f"Predicted {low:g}/{spec['points']:g}, or up to {high:g}: your `diagnose` {' and '.join(why)}"


def kinds_said(kinds: list[tuple]) -> str:
    """Kinds of run (label, severity) by label: "small replay buffer (severity 1, 2)"; "3 kinds of" past two labels."""
    severities: dict[str, list[int]] = {}
    for truth, severity in kinds:
        severities.setdefault(truth, []).append(severity)
    if len(severities) > 2:
        return f"{len(kinds)} kinds of"
    return " and ".join(f"{truth.replace('_', ' ')} (severity {', '.join(map(str, sorted(found)))})"
                        for truth, found in severities.items())


def labelled_by_kind(truths: list[str], labels: list[str]) -> dict:
    """Per true label of the logs: [how many ``diagnose`` labelled right, how many there are]."""
    out: dict[str, list[int]] = {}
    for truth, label in zip(truths, labels):
        counts = out.setdefault(truth, [0, 0])
        counts[0] += label == truth
        counts[1] += 1
    return out


def _mistakes(spec: dict, labels: list[str]) -> list[str]:
    """The recorded mistakes of ``diagnose`` whose labels of the check's logs are ``labels``."""
    return recognised(spec, [spec["labels"].index(label) for label in labels])


def _labelled(student, logs: list[dict], labels: list[str], what: str) -> list[str]:
    fn, out = student.fn("diagnose"), []
    for i, log in enumerate(logs):
        label = fn(log)
        if not isinstance(label, str) or label not in labels:
            raise StudentError(f"diagnose ({what} {i + 1}): expected one of {', '.join(labels)}, found "
                               f"{describe(label)}", "invalid")
        out.append(label)
    return out


def at_the_lines(student, spec: dict) -> Verdict:
    """The public seeds' logs at the course's lines, labelled by ``diagnose``: how many are right (by count alone).
    Final grading builds its logs from one seed of its own: where some public seed's logs are all right and another's
    are not, that seed's may go either way (``Verdict.spread``, the row being all or nothing)."""
    labels = _labelled(student, logs_of(Path(spec["_dir"]) / spec["logs"]), spec["labels"], "log at the lines")
    hits = [label == truth for label, truth in zip(labels, spec["truth"])]
    seeds, right = spec.get("seeds", 1), sum(hits)
    said = f"`diagnose` labels {right} of the {len(labels)} logs built at the README's thresholds on the public seed" \
           f"{'s' * (seeds > 1)} right"
    whole_seeds = sum(all(part) for part in np.array_split(hits, seeds))
    spread = [0.0, 1.0] if 0 < whole_seeds < seeds else None
    if spread:
        said += (f"; every log of {whole_seeds} of the {seeds} seeds is right, and final grading builds its logs from "
                 "one seed of its own")
    verdict = Verdict(right / len(labels), said, spread=spread)
    return with_findings(verdict, spec, _mistakes(spec, labels))


def own_labels(student, spec: dict) -> Verdict:
    """How many of the student's own logs ``my_labels`` names as ``diagnose`` does (the logs of ``logs/``, read with
    the given ``load_log``)."""
    given = student.fn("my_labels")()
    if not isinstance(given, dict) or set(given) != set(spec["names"]):
        raise StudentError(f"my_labels: expected a dict with keys {', '.join(spec['names'])}, found "
                           f"{describe(given)}", "invalid")
    load, folder = student.fn("load_log"), student.folder / "logs"
    try:  # `my_labels` answered: what `diagnose` does with the logs tells what that answer rests on, no more
        diagnosed = _labelled(student, [load(folder / f"{name}.npz") for name in spec["names"]], spec["labels"], "log")
    except StudentError as exc:
        return Verdict(0.0, f"`my_labels` answered, but {exc}")
    same = sum(given[name] == label for name, label in zip(spec["names"], diagnosed))
    return Verdict(same / len(spec["names"]), f"`my_labels` names {same} of your {len(spec['names'])} logs as your "
                   "`diagnose` does")
