"""What a student may never read: the grading seeds and the course secret, struck from every text a report holds.

Judges name grading seeds only by count (``Context.seeds_shown``), but student code is handed the seeds it is graded
on (``train(..., seed)``, a generator made from one) and may print one in an exception, a label or a file name that a
message repeats. So every string of a report graded with the grading seeds passes through ``redact`` before any view
(table, HTML, Gradescope, nbgrader) sees it. Numbers are left alone: a value the student's code returns is shown back
as found, and what such a value encodes is beyond any filter (see docs/security.md).
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, replace
from functools import cached_property

from autograder.departures import SAW, cut, first_departure
from autograder.findings import Finding, Located
from autograder.report.model import CheckResult, ProjectResult, Report
from autograder.status import Status
from capstone_check.located import sentence

SEED_MARK = "‹grading seed›"
SECRET_MARK = "‹course secret›"


@dataclass(frozen=True)
class Hidden:
    """The values to strike: grading seeds that are not also public, and the course secret."""

    seeds: tuple[int, ...] = ()
    secret: str | None = None

    @classmethod
    def of(cls, course, seed_set: str) -> Hidden:
        seeds = set(course.seeds.grading) - set(course.seeds.public) if seed_set == "grading" else set()
        return cls(tuple(sorted(seeds, reverse=True)), course.secret)

    @cached_property
    def pattern(self) -> re.Pattern | None:
        # a seed only as a whole number: 4711 in "seed 4711" or "4711.0", never inside 14711 or 0.4711
        words = [rf"(?<![\d.]){seed}(?!\d)" for seed in self.seeds]
        return re.compile("|".join(words)) if words else None


def redact_text(text: str, hidden: Hidden) -> str:
    if hidden.secret:
        text = text.replace(hidden.secret, SECRET_MARK)
    return hidden.pattern.sub(SEED_MARK, text) if hidden.pattern else text


def redact(value, hidden: Hidden):
    """``value`` (plain data: dicts, lists, strings, numbers) with every hidden value struck from its strings."""
    if not hidden.seeds and not hidden.secret:
        return value
    if isinstance(value, str):
        return redact_text(value, hidden)
    if isinstance(value, dict):
        return {redact(key, hidden): redact(item, hidden) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item, hidden) for item in value]
    return value


def redacted(report: Report, hidden: Hidden, limit: int | None = None) -> Report:
    """``report`` with every hidden value struck from each string it holds: names, messages, details, findings and
    notes (``outcome`` is derived from the numbers, which are left alone); then, with ``limit``, each message cut to
    that many characters. The cut comes last: cut first, a seed split by it would no longer match the redaction."""
    return Report(redact(report.submission, hidden), redact(report.seeds, hidden),
                  {redact(pid, hidden): ProjectResult([_redacted_check(check, hidden, limit)
                                                       for check in section.checks], redact(section.notes, hidden))
                   for pid, section in report.projects.items()})


def _redacted_check(check: CheckResult, hidden: Hidden, limit: int | None) -> CheckResult:
    message = redact(check.message, hidden)
    return replace(check, id=redact(check.id, hidden), name=redact(check.name, hidden),
                   message=message if limit is None else cut(message, limit), details=redact(check.details, hidden),
                   findings=[Finding(**redact(finding.model_dump(), hidden)) for finding in check.findings],
                   located=[Located(**redact(statement.model_dump(), hidden)) for statement in check.located])


# ------------------------------------------------------------------------------------------------ the blind report

BLIND = ("on the grading seeds the report quotes nothing your code produced: `capstone-check {pid}` shows what "
         "was expected and measured on the public seeds")
KINDS = {"not_implemented": "a piece this check calls is not implemented yet (it raises NotImplementedError)",
         "missing": "a function this check calls is missing, or is not a function",
         "syntax": "a module of yours does not compile",
         "import": "importing a module of yours failed",
         "raised": "your code raised {exception}",
         "invalid": "your code returned a value of the wrong type, shape or kind",
         "processes": "started more than {processes} processes (the check's process limit)"}
# exceptions named by their type when it is Python's own: a class of the student's could be named after a seed
BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and issubclass(value, BaseException))
CHOSEN_BY_THE_CHILD = ("exited with code", "was killed by signal")  # an exit code or a signal carries what it likes
# details in the grader's own words that the blind message keeps saying: whose logs C.own_labels judged
SAID_ALONG = ("graded_against",)


def blind(entry, outcome, pid: str, shown: tuple[str, ...], processes: int):
    """``entry`` (a ``CheckResult`` graded on the grading seeds) as a student may see it: every sentence the kit's
    own, no text from the child (an exception's message, a type of the student's, a line number, an exit code),
    no number the student's code handed back, and only the details ``shown`` that the grader computed itself."""
    if outcome is None or outcome.seedless:  # no child ran, or none was told a seed (the import probe)
        return entry
    hint = BLIND.format(pid=pid)
    if entry.status is None:  # judged: the verdict's sentences quote what the child returned
        said = {"passed": "passed on the grading seeds", "partial": "passed part of its cases on the grading seeds",
                "failed": "failed on the grading seeds"}[entry.outcome]
        details = {key: value for key, value in entry.details.items() if key in shown}
        said += "".join(f" ({details[key]})" for key in SAID_ALONG if isinstance(details.get(key), str))
        found = "".join(f"; {finding.text}" for finding in entry.findings)  # the catalogue's words, never the child's
        update = first_departure(details)
        if update is not None and not entry.passed:  # the grader's own finding, from its replay: no text of the child's
            message = (f"Not credited on the grading seeds: a run made with your pieces left the reference's updates. "
                       f"{hint[0].upper()}{hint[1:]}. {SAW}the first run to leave did so at update {update}{found}.")
        else:
            message = f"{said}{found}" if entry.passed else f"{said}{found}; {hint}"
            where = sentence([statement.model_dump() for statement in entry.located])
            message += f". {where}" if where and not entry.passed else ""  # features and relations only, no value
    else:
        message, details = _failure(entry, outcome, processes, hint), entry.details
        where = sentence([statement.model_dump() for statement in entry.located])  # the grader's, from its vocabulary
        message += f". {where}" if where else ""
    return replace(entry, message=message, details=details, seconds=float(round(entry.seconds)))


def _failure(entry, outcome, processes: int, hint: str) -> str:
    status = entry.status
    if status in (Status.TIMEOUT, Status.MEMORY, Status.STOPPED):
        return entry.message  # the kit's own sentence, naming the course's limits
    if status == Status.STUDENT_ERROR:
        exception = outcome.exception if outcome.exception in BUILTIN_EXCEPTIONS else "an exception of its own class"
        said = KINDS.get(outcome.kind, "your code failed").format(exception=exception, processes=processes)
        return f"{said}; {hint}"
    if status == Status.CRASHED and any(words in entry.message for words in CHOSEN_BY_THE_CHILD):
        return ("the process running your code ended before the check finished (an exit, a signal or a crash of "
                f"the interpreter); {hint}")
    if status == Status.INTERNAL_ERROR and outcome.kind != "child":  # the grader's own failure may quote the child's
        return "the grader itself failed on this check; this is not your fault, please tell the instructor"
    if status == Status.MALFORMED:
        return f"the data this check's run handed back is not what the check collects; {hint}"
    return entry.message
