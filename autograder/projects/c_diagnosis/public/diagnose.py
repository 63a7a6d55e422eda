"""Project C's checks of ``diagnose``. C.fresh_runs is written once: final grading hands ``collect_fresh_runs`` the
runs it trains on its seeds, the students' checker the public seeds' runs recorded at release, and both decide with
``judge_fresh_runs``, counting per kind of run, never by position, so a message does not say which call was which
run. C.diagnose_rules is written once the same way, on the logs at the lines of the smallest seed. The student's own
labels are final grading's alone: which fault each of their logs holds follows from the course secret."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from capstone_check.calls import recognised, with_findings
from capstone_check.student import StudentError, describe
from capstone_check.verdict import LONGEST, Verdict, shown_failures


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


def label_of(value, labels, what: str) -> str:
    if not isinstance(value, str) or value not in labels:
        raise StudentError(f"{what}: expected one of {', '.join(labels)}, found {describe(value)}", "invalid")
    return value


def collect_fresh_runs(student, inputs: dict) -> dict:
    """In the child: what ``diagnose`` says of every fresh run (``inputs["logs"]``, shaped, in plan order)."""
    fn, labels = student.fn("diagnose"), inputs["labels"]
    return {"labels": [label_of(fn(log), labels, f"diagnose (run {i + 1})") for i, log in enumerate(inputs["logs"])]}


def judge_fresh_runs(spec: dict, data) -> Verdict:
    """The row on the fresh runs of ``spec["runs"]`` (per run in plan order: its truth and its severity): counted
    per kind of run (``verdict_of``), the known mistakes whose labels are all the student's named beside it; where
    the seeds label some kind both ways, what another draw of seeds may give beside it too."""
    runs = spec["runs"]
    labels = data.get("labels") if isinstance(data, dict) else None
    if not isinstance(labels, list) or len(labels) != len(runs) or not all(
            isinstance(label, str) and label in spec["labels"] for label in labels):
        raise StudentError(f"expected one of {', '.join(spec['labels'])} for each of the {len(runs)} fresh runs",
                           "invalid")
    graded = [((truth, severity), label) for (truth, severity), label in zip(runs, labels)]
    verdict = verdict_of(Counter((truth, severity, label) for (truth, severity), label in graded))
    verdict.by_kind = labelled_by_kind([truth for (truth, _), _ in graded], [label for _, label in graded])
    verdict.spread = seeds_apart(graded)
    if verdict.spread and "points" in spec:
        verdict.aside = spread_note(spec["points"], verdict.spread)
    return with_findings(verdict, spec, _mistakes(spec, labels))


def fresh_runs(student, spec: dict) -> Verdict:
    """The students' checker: ``diagnose`` on the public seeds' runs, shaped, recorded at release, judged as final
    grading judges."""
    logs = logs_of(Path(spec["_dir"]) / spec["logs"])
    return judge_fresh_runs(spec, collect_fresh_runs(student, {"labels": spec["labels"], "logs": logs}))


def verdict_of(tally: Counter) -> Verdict:
    """The verdict on fresh runs from counts per (truth, severity, label) alone. Never by position, in the message,
    the details or the figure: the runs are the same for every submission of the course, so a report that told which
    call of ``diagnose`` was which fault would be an answer key for the next submission and for every classmate."""
    total = sum(tally.values())
    wrong = {key: n for key, n in tally.items() if key[0] != key[2]}
    failures = [f"{n} {truth.replace('_', ' ')} run{'s' * (n > 1)} (severity {severity}) labelled {label}"
                for (truth, severity, label), n in sorted(wrong.items())]
    counts = [{"truth": truth, "severity": severity, "label": label, "runs": n}
              for (truth, severity, label), n in sorted(tally.items())]
    right = {(truth, severity, truth == label) for truth, severity, label in tally}
    both = {(truth, severity) for truth, severity, _ in right if {(truth, severity, True), (truth, severity, False)}
            <= right}
    # such a kind's share turns on which runs a draw holds: the one score that can (docs/design-notes.md)
    mixed = (f"; {len(both)} kind{'s' * (len(both) > 1)} of run labelled both ways, whose share another draw of seeds "
             "may change") if both else ""
    if not total:
        return Verdict(1.0, "no fresh run was labelled", {"counts": counts})
    return Verdict(share_right(((truth, severity), truth == label) for (truth, severity, label), n in tally.items()
                               for _ in range(n)),
                   (shown_failures(failures, room=LONGEST - len(mixed)) if failures
                    else f"all {total} fresh runs labelled right") + mixed,
                   {"counts": counts})


def seeds_apart(graded: list) -> list[float] | None:
    """Where final grading's seeds may see a kind of run (label and severity) otherwise than the public seeds do, the
    least and most score they may give: a kind ``diagnose`` labels right on one public seed and wrong on another,
    counted wrong, then right. ``graded``: the runs' (kind, label). None where every kind goes one way (the score here
    is the prediction)."""
    runs = by_kind((kind, label == kind[0]) for kind, label in graded)
    if not runs:
        return None
    least = sum(all(r) for r in runs.values())
    most = sum(any(r) for r in runs.values())
    return None if least == most else [least / len(runs), most / len(runs)]


def spread_note(points: float, spread: list[float]) -> str:
    """The row's prediction where the public seeds leave it open, and why: said beside the row (``Verdict.aside``)."""
    low, high = (round(points * share, 2) for share in spread)
    return (f"Predicted {low:g}/{points:g}, or up to {high:g}: your `diagnose` labels some kind of run right on one "
            "public seed and wrong on another, and final grading labels runs of its own seeds")


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
    fn = student.fn("diagnose")
    return [label_of(fn(log), labels, f"diagnose ({what} {i + 1})") for i, log in enumerate(logs)]


def collect_at_the_lines(student, inputs: dict) -> dict:
    """In the child: what ``diagnose`` says of every log at the lines (``inputs["logs"]``, in the order the seed and
    the course secret drew)."""
    return {"labels": _labelled(student, inputs["logs"], inputs["labels"], "boundary log")}


def judge_at_the_lines(spec: dict, data) -> Verdict:
    """The row on the logs at the lines (``spec["at_the_lines"]``: per log in the child's order, its name and its
    truth): every log labelled wrong said by its name, with the lesson it teaches, never by its position, so a message
    does not tell which call of ``diagnose`` was which log; the known mistakes whose labels are all the student's
    named beside it."""
    logs = spec["at_the_lines"]
    labels = data.get("labels") if isinstance(data, dict) else None
    if not isinstance(labels, list) or len(labels) != len(logs) or not all(
            isinstance(label, str) and label in spec["labels"] for label in labels):
        raise StudentError(f"expected one of {', '.join(spec['labels'])} for each of the {len(logs)} logs at the "
                           "lines", "invalid")
    wrong = sorted(f"{name} was labelled {label}, not {truth}: {spec['lessons'][name]}"
                   for (name, truth), label in zip(logs, labels) if label != truth)
    shown = sorted(({"log": name, "truth": truth, "label": label} for (name, truth), label in zip(logs, labels)),
                   key=lambda row: row["log"])
    verdict = Verdict.of(wrong, len(logs), f"all {len(logs)} logs built at the README's thresholds labelled right",
                         logs=shown)
    return with_findings(verdict, spec, _mistakes(spec, labels))


def at_the_lines(student, spec: dict) -> Verdict:
    """The students' checker: ``diagnose`` on the smallest public seed's logs at the lines, recorded at release,
    judged as final grading judges."""
    logs = logs_of(Path(spec["_dir"]) / spec["logs"])
    return judge_at_the_lines(spec, collect_at_the_lines(student, {"labels": spec["labels"], "logs": logs}))


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
