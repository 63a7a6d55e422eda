"""The class's mistakes: per check, each known mistake recognised in the class's reports, how many students made it
and who (staff only), as findings.csv beside summary.html, a bar plot and a table of the summary page."""

from __future__ import annotations

import base64
import csv
import html
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


def findings_section(rows, folder: Path) -> str:
    """The summary page's section on the class's mistakes; writes findings.csv into ``folder``."""
    findings = class_findings(rows)
    write_findings_csv(findings, folder / FINDINGS_CSV)
    if not findings:
        return "<h2>Mistakes recognised</h2><p class='note'>No known mistake was recognised in the class's reports.</p>"
    caption = "Known mistakes recognised, by how many students made them"
    image = base64.b64encode(findings_plot(findings)).decode()
    rows_html = "".join(
        f"<tr class='finding-row'><td class='id'>{html.escape(f.check)}</td><td class='id'>{html.escape(f.id)}</td>"
        f"<td>{html.escape(f.text)}</td><td class='score'>{len(f.students)}</td>"
        f"<td>{html.escape(', '.join(sorted(f.students)))}</td></tr>" for f in findings)
    return (f"<h2 id='findings'>Mistakes recognised</h2><figure><img alt='{caption}' src='data:image/png;base64,"
            f"{image}'><figcaption>{caption}</figcaption></figure><p class='note'>Staff only: who made each mistake, "
            f"also in <a href='{FINDINGS_CSV}'>{FINDINGS_CSV}</a>.</p><table><tr><th>check</th><th>finding</th>"
            f"<th>the mistake</th><th>students</th><th>who</th></tr>{rows_html}</table>")
