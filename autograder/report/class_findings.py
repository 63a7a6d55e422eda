"""The class's mistakes: per check, each known mistake recognised in the class's reports, how many students made it
and who (staff only), as findings.csv beside summary.html, a bar plot and a table of the summary page."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from autograder.report.figures import figure, png

FINDINGS_CSV = "findings.csv"
COLUMNS = ("check", "finding", "mistake", "students", "who")


@dataclass
class ClassFinding:
    """One known mistake across the class: where it was found, its sentence, and the students who made it."""

    check: str
    id: str
    text: str
    students: list[str] = field(default_factory=list)


def class_findings(rows) -> list[ClassFinding]:
    """Every finding of the graded rows' reports, most frequent first (then by check and id)."""
    found: dict[tuple[str, str], ClassFinding] = {}
    for row in rows:
        for check in row.report.checks() if row.report else []:
            for finding in check.findings:
                entry = found.setdefault((check.id, finding.id), ClassFinding(check.id, finding.id, finding.text))
                entry.students.append(row.student)
    return sorted(found.values(), key=lambda f: (-len(f.students), f.check, f.id))


def write_findings_csv(findings: list[ClassFinding], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for f in findings:
            writer.writerow([f.check, f.id, f.text, len(f.students), " ".join(sorted(f.students))])
    return path


def findings_plot(findings: list[ClassFinding]) -> bytes:
    fig, ax = figure(7.2, 0.3 * len(findings) + 1.2)
    ax.barh([f.id for f in findings][::-1], [len(f.students) for f in findings][::-1], color="tab:red")
    ax.set(xlabel="students who made the mistake")
    ax.xaxis.get_major_locator().set_params(integer=True)
    return png(fig)


def findings_section(rows, folder: Path) -> dict:
    """What the summary page shows of the class's mistakes (``summary.html``'s findings section): the findings, their
    bar plot (None when there are none) and the name of findings.csv, which this writes into ``folder``."""
    findings = class_findings(rows)
    write_findings_csv(findings, folder / FINDINGS_CSV)
    return {"findings": findings, "findings_plot": findings_plot(findings) if findings else None,
            "findings_csv": FINDINGS_CSV}
