"""Project C's fresh runs: ``diagnose`` on the public seeds' runs (recorded at release), counted as final grading
counts them: never by position, so a message does not say which call was which run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from capstone_check.student import StudentError, describe
from capstone_check.verdict import Verdict


def logs_of(path: Path) -> list[dict]:
    with np.load(path, allow_pickle=False) as data:
        runs: dict[int, dict] = {}
        for key in data.files:
            run, field = key.split("/", 1)
            runs.setdefault(int(run.split("_")[1]), {})[field] = data[key]
    return [runs[i] for i in sorted(runs)]


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
    return Verdict(1 - sum(wrong.values()) / len(labels), "; ".join(failures) or
                   f"all {len(labels)} fresh runs labelled right")
