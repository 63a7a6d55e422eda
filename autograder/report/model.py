"""The report as typed objects: what grading builds, what every view reads, and what ``to_json`` writes.

The JSON form is the one documented in ``docs/report-schema.md``; ``to_json`` and ``from_json`` are the only code that
knows its keys, so a view cannot misspell one and a report on disk (grade-all's resume) becomes the same objects again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from autograder.findings import Finding, Located
from autograder.status import Status

# How a check ended, said once here instead of being re-derived from score and details by every view:
# "error" when it never got to a verdict (its details carry a ``status``), else by the points it earned.
CheckOutcome = Literal["passed", "partial", "failed", "error"]
OUTCOMES = ("passed", "partial", "failed", "error")


def not_run(status: Status, kind: str | None = None) -> dict:
    """The details of a check that got no verdict (see the schema's ``status`` list); the one place they are made.
    They hold the status's value: details are plain JSON data, on disk and in memory alike."""
    return {"status": Status(status).value, **({"kind": kind} if kind else {})}


@dataclass
class CheckResult:
    """One check's entry in the report."""

    id: str
    name: str
    score: float
    max_score: float
    passed: bool
    message: str
    details: dict = field(default_factory=dict)
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)  # known mistakes recognised in a failed check
    located: list[Located] = field(default_factory=list)  # where a failed check's output departs

    @property
    def status(self) -> Status | None:
        """Why the check got no verdict (``Status.TIMEOUT``, ``Status.STUDENT_ERROR``, ...), or None when it was
        judged."""
        status = self.details.get("status")
        return None if status is None else Status(status)

    @property
    def kind(self) -> str | None:
        """``syntax`` or ``import`` when the project's modules failed at import, else None."""
        return self.details.get("kind")

    @property
    def outcome(self) -> CheckOutcome:
        if self.status is not None:
            return "error"
        if self.passed:
            return "passed"
        return "partial" if self.score > 0 else "failed"

    @property
    def figures_data(self) -> dict | None:
        """The details a project's figures are drawn from: a judged check's, never a failure's."""
        return self.details if self.details and self.status is None else None

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "score": self.score, "max_score": self.max_score,
                "passed": self.passed, "outcome": self.outcome, "message": self.message, "details": self.details,
                "seconds": self.seconds, **self._findings_json()}

    def _findings_json(self) -> dict:
        """Optional in the schema: each absent when no known mistake was recognised, or nothing was located."""
        return {**({"findings": [f.model_dump() for f in self.findings]} if self.findings else {}),
                **({"located": [s.model_dump() for s in self.located]} if self.located else {})}

    @classmethod
    def from_json(cls, data: dict) -> CheckResult:
        """``outcome`` is derived, so a stored one (or its absence, in a report written before it existed) is not
        read back."""
        return cls(data["id"], data["name"], data["score"], data["max_score"], data["passed"], data["message"],
                   data["details"], data["seconds"], [Finding(**f) for f in data.get("findings", [])],
                   [Located(**s) for s in data.get("located", [])])


@dataclass
class ProjectResult:
    """One project's checks, in course.yml's order, and the notes said once for all of them."""

    checks: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 2)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks), 6)

    def figures_data(self) -> dict[str, dict]:
        """Every check's details by check id, what ``Project.plots`` draws: a judged check's, and an empty dict for
        a check that failed to run (so a figure can say which of its checks gave nothing to draw)."""
        return {c.id: c.figures_data or {} for c in self.checks}

    def to_json(self) -> dict:
        out = {"score": self.score, "max_score": self.max_score, "checks": [c.to_json() for c in self.checks]}
        if self.notes:  # optional in the schema: absent when nothing was left out
            out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_json(cls, data: dict) -> ProjectResult:
        return cls([CheckResult.from_json(c) for c in data["checks"]], list(data.get("notes", [])))


@dataclass
class Report:
    """A graded submission: its projects in the course's order. Totals are sums of the checks, so never stale."""

    submission: str
    seeds: str
    projects: dict[str, ProjectResult] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return round(sum(p.score for p in self.projects.values()), 2)

    @property
    def max_score(self) -> float:
        return round(sum(p.max_score for p in self.projects.values()), 6)

    def checks(self) -> list[CheckResult]:
        """Every check of every project, in report order."""
        return [check for project in self.projects.values() for check in project.checks]

    def project_score(self, pid: str) -> float:
        """Project ``pid``'s score, 0 when it was not graded (a student who did not hand it in)."""
        return self.projects[pid].score if pid in self.projects else 0.0

    def to_json(self) -> dict:
        return {"submission": self.submission, "seeds": self.seeds, "score": self.score, "max_score": self.max_score,
                "projects": {pid: project.to_json() for pid, project in self.projects.items()}}

    @classmethod
    def from_json(cls, data: dict) -> Report:
        return cls(data["submission"], data["seeds"],
                   {pid: ProjectResult.from_json(p) for pid, p in data["projects"].items()})

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> Report:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
