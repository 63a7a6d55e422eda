"""Every judge, fed random malformed plain data through the path grading takes (wrong shapes and types, NaN, inf,
huge sizes, missing keys): no exception escapes, the check scores 0, and the report and its figures are written.

A child's result is plain JSON whatever student code does, so this is all a judge can ever be handed. The keys a
judge reads are found by handing it a dict that records what it asks for."""

from __future__ import annotations

import json
import random

import pytest

from autograder.grading import figures_for, figures_of, judged
from autograder.plan import planned
from autograder.projects import PROJECTS
from autograder.report import ProjectResult, Report, write_html, write_json
from autograder.sandbox.runner import ChildRun

NAN, INF = float("nan"), float("inf")
GARBAGE = [
    lambda r: NAN, lambda r: INF, lambda r: -1, lambda r: "text", lambda r: None, lambda r: True, lambda r: [],
    lambda r: {}, lambda r: [NAN] * r.randint(1, 40), lambda r: [[1.0], [1.0, 2.0]], lambda r: [0.0] * 200_000,
    lambda r: {"theta": [INF]}, lambda r: "x" * 100_000, lambda r: [[NAN] * 9] * 4, lambda r: [[INF, -INF]] * 50,
    lambda r: [{"seed": 1, "episodes": {"baseline": [[0, NAN]]}}], lambda r: [r.random() for _ in range(64)],
    lambda r: [[r.random()] * 9 for _ in range(4)], lambda r: [[[r.random()] * 3] * 5] * 3,
]
HEAVY = {"C.fresh_runs", "C.own_labels"}  # their judges train the runs they grade against: one round is enough


class Recording(dict):
    """A dict that notes every key a judge asks it for."""

    def __init__(self, values: dict, asked: set):
        super().__init__(values)
        self.asked = asked

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)


def keys_read_by(pid: str, cid: str, course) -> list[str]:
    """The keys the judge reads, found by feeding it garbage under every key it has asked for so far."""
    values, rng = {}, random.Random(0)
    for _ in range(6):
        asked: set = set()
        judged(planned(course, pid, cid, "public"), ChildRun("ok", 0.0, Recording(values, asked)), course)
        if asked <= set(values):
            break
        values.update({key: rng.choice(GARBAGE)(rng) for key in asked - set(values)})
    return sorted(values)


def malformed(keys: list[str], rng: random.Random) -> dict:
    """Garbage under each key, some keys missing, sometimes a stray key."""
    data = {key: rng.choice(GARBAGE)(rng) for key in keys if rng.random() < 0.85}
    if rng.random() < 0.3:
        data["stray"] = rng.choice(GARBAGE)(rng)
    return data


CHECKS = [(pid, cid) for pid, project in PROJECTS.items() for cid in project.checks]


@pytest.mark.parametrize("pid, cid", CHECKS, ids=[cid for _, cid in CHECKS])
def test_a_judge_fed_malformed_data_fails_the_check_and_the_report_is_written(tmp_path, course, pid, cid):
    rng = random.Random(cid)
    keys = keys_read_by(pid, cid, course)
    cases = [{}, *(malformed(keys, rng) for _ in range(1 if cid in HEAVY else 12))]
    for data in cases:
        item = planned(course, pid, cid, "public")
        entry = judged(item, ChildRun("ok", 0.0, json.loads(json.dumps(data))), course)
        assert entry.score == 0 and not entry.passed, (data, entry)
        assert "grader itself failed" not in entry.message, (data, entry.message)
        assert len(entry.message) <= course.limits.message_chars + 60
        report = Report("fuzz", "public", {pid: ProjectResult([entry])})
        figures = figures_for(report)
        write_json(report, tmp_path / "report.json")
        write_html(report, figures, tmp_path / "report.html", {pid: PROJECTS[pid].title})
        assert figures_of(pid, {cid: entry.details}) is not None
