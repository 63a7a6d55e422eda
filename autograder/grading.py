"""Grade one submission: find its project folders, run every configured check in the sandbox, score, report.

The report is a ``Report`` (``autograder.report.model``) whose JSON form is ``docs/report-schema.md``'s; figures travel
beside it.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.sandbox.within_budget import within_budget
from autograder.submission_budget import OutOfBudget, SubmissionBudget
from autograder.checks import Context, Malformed, Verdict, declared
from autograder.config import Course, SeedSet
from autograder.departures import cut, with_failing_pieces
from autograder.grading_run import GradingRun
from autograder.plan import PlannedCheck, missing_folder, plan, project_folder
from autograder.projects import PROJECTS
from autograder.report.figures import close_unfinished
from autograder.report.model import CheckResult, ProjectResult, Report, not_run
from autograder.sandbox import jail, runtime, staging
from autograder.sandbox.runner import STOP, ChildRun, run_check
from autograder.secrecy import Hidden, blind, redact_text, redacted
from autograder.findings import Located, led_on_error
from autograder.status import Status
from capstone_check.student import StudentError


# What a judge raises on values of the wrong type, shape or length. Judges are run on the reference's data in the
# tests, so such an error comes from what a child handed back, and it is said as such (neutrally: see MALFORMED).
SHAPE_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError)
MALFORMED = ("the data this check's run handed back is not what the check collects ({}), so nothing could be graded. "
             "If your code leaves the grader's modules and files alone, please tell the instructor")


class Stopped(Exception):
    """Grading was stopped (Ctrl-C in grade-all) before every check had run: there is no report to write."""


@dataclass
class Graded:
    """The report and each project's figures as (title, png) pairs."""

    report: Report
    figures: dict[str, list[tuple[str, bytes]]] = field(default_factory=dict)


def _entry(check_id: str, name: str, points: float, outcome: ChildRun | None, verdict=None,
           missing: str = "", credit: str = "per_case") -> CheckResult:
    if verdict is not None:
        fraction, message, details = min(max(verdict.fraction, 0.0), 1.0), verdict.message, verdict.details
        if credit == "all_or_nothing" and fraction < 1.0:
            fraction = 0.0
    elif outcome is None:
        fraction, message, details = 0.0, missing, {}
    else:
        # a project whose modules failed at import says how (grade-all names it)
        kind = outcome.kind if outcome.kind in ("syntax", "import") else None
        fraction, message, details = 0.0, _failure_message(outcome), not_run(outcome.status, kind)
    failed = verdict is not None and fraction < 1.0
    findings, located = (list(verdict.findings), [Located(**s) for s in verdict.located]) if failed else ([], [])
    return CheckResult(check_id, name, round(points * fraction, 2), float(points), fraction >= 1.0, message, details,
                       round(outcome.seconds, 3) if outcome else 0.0, findings, located)


def _failure_message(outcome: ChildRun) -> str:
    if outcome.status == Status.INTERNAL_ERROR and outcome.kind == "child":  # the child's, where student code rules:
        return ("the grader's part of this check failed inside the sandbox, where your code runs too, so it cannot "
                "be told apart from your code's doing; please tell the instructor")  # no echo of what it said
    if outcome.status == Status.INTERNAL_ERROR:
        return ("the grader itself failed on this check; this is not your fault, please tell the instructor. "
                + (outcome.message.strip().splitlines() or [""])[-1])
    return outcome.message


def _merge(shards: dict[tuple[int, ...], ChildRun], seeds: list[int]) -> ChildRun:
    """One check's shards as one outcome: the first failure, or every collected list joined in the order of ``seeds``
    (``Course.seeds_for``'s, the order ``judge`` pairs them with). A shard is found by its seed, never by the
    order in which the shards ran or finished."""
    if len(shards) == 1:
        return next(iter(shards.values()))
    ordered = [shards[(seed,)] for seed in seeds]
    seconds = sum(o.seconds for o in ordered)
    for outcome in ordered:
        if outcome.status != Status.OK:
            return ChildRun(outcome.status, seconds, {}, outcome.message, outcome.kind, exception=outcome.exception)
    parts = [o.payload() for o in ordered]
    keys = set(parts[0])
    if any(set(part) != keys or not all(isinstance(v, list) for v in part.values()) for part in parts):
        return ChildRun(Status.CRASHED, seconds, message=MALFORMED.format("one seed's run handed back other keys than "
                                                                    "the others, or values that are not lists"))
    data = {key: [item for part in parts for item in part[key]] for key in keys}
    return ChildRun(Status.OK, seconds, raw=json.dumps({"data": data}).encode())  # held as text again until judged


def _prepare(check, ctx: Context) -> Context | ChildRun:
    """Let a check with a ``prepare`` make its child's input file in the grader: the child's context with that file
    as ``inputs``, or the outcome of a failure there, which is the grader's."""
    if not hasattr(check, "prepare"):
        return ctx
    if STOP.is_set():  # preparing trains in this process, where Ctrl-C could not stop it for seconds
        return ChildRun(Status.STOPPED, 0.0, message="grading was stopped before this check started")
    started = time.perf_counter()
    try:
        return replace(ctx, inputs=check.prepare(ctx))
    except Exception:  # noqa: BLE001 - costs this check, never the report
        return ChildRun(Status.INTERNAL_ERROR, time.perf_counter() - started, message=traceback.format_exc(limit=-3))


def _early(check, outcome: ChildRun, ctx: Context) -> None:
    """A check's ``on_shard`` on one child's data, in this worker (so ``jobs`` bounds it too), charged to the budget of
    ``ctx.grading``; it only prepares work ``judge`` redoes when missing, so a failure here is dropped."""
    if outcome.status != Status.OK or not hasattr(check, "on_shard") or STOP.is_set():
        return
    try:
        check.on_shard(outcome.payload(), ctx)
    except Exception:  # noqa: BLE001 - the judge does the same work again and reports its failure
        pass


CHEAP_COST = 2.0  # a check's cost per seed-run (rough seconds) at or below which it runs before the slow ones


def _sandbox_runs(course: Course, checks: list[PlannedCheck], jobs, progress,
                  grading: GradingRun) -> list[ChildRun | None]:
    """Run every planned check that has a folder in the sandbox, per-seed checks split across children, all within
    the submission's time budget: the cheap checks first, so that a tight budget is never spent on a slow check
    while a one-second one waits, then the others longest first."""
    tasks = [(i, shard, item.check.cost * len(shard))  # (index in checks, seeds for this child, cost)
             for i, item in enumerate(checks) if item.folder is not None for shard in item.shards()]
    tasks.sort(key=lambda task: (checks[task[0]].check.cost > CHEAP_COST, -task[2]))
    unfinished = {i: sum(1 for task in tasks if task[0] == i) for i, _, _ in tasks}  # children left per check
    total, counted = len(unfinished), threading.Lock()

    def run(task):
        i, shard, _ = task
        item = checks[i]
        ctx = _prepare(item.check, item.context_for(shard))
        limits = course.limits_for(item.project, item.check_id)
        outcome = ctx if isinstance(ctx, ChildRun) else within_budget(
            item.check_id, item.request(ctx), limits, runtime_dir, grading.budget)
        _early(item.check, outcome, replace(item.context_for(shard), grading=grading))
        with counted:  # a check is done when its last child is: one step per check, per-seed ones included
            unfinished[i] -= 1
            if progress and unfinished[i] == 0:
                progress(item.check_id, total - sum(1 for left in unfinished.values() if left), total)
        return outcome

    with runtime.staged() as runtime_dir, ThreadPoolExecutor(max_workers=jobs or course.jobs) as pool:
        results = list(pool.map(run, tasks))
    shards: dict[int, dict[tuple[int, ...], ChildRun]] = {}
    for (i, shard, _), outcome in zip(tasks, results):
        shards.setdefault(i, {})[tuple(shard)] = outcome
    return [_merge(shards[i], list(checks[i].seeds)) if i in shards else None for i in range(len(checks))]


def _failed_imports(course: Course, checks: list[PlannedCheck], jobs: int | None) -> dict[str, ChildRun]:
    """Import each planned project's modules once, in one child limited to ``limits.import_seconds``: a module that
    hangs, crashes, exits or fails to compile at import then costs every check of its project that one short run,
    with one sentence, and none of their children is started. Returns the failed projects' outcomes."""
    folders = {item.project: item.folder for item in checks if item.folder is not None}
    seconds = course.limits.import_seconds
    limits = course.limits.model_copy(update={"wall_seconds": seconds,
                                              "cpu_seconds": min(seconds, course.limits.cpu_seconds)})

    def probe(pid: str) -> ChildRun:
        request = {"project": pid, "check": None, "folder": str(folders[pid].resolve()), "seeds": [],
                   "seed_set": "public", "bar": {}}
        return run_check(request, limits, runtime_dir)

    with runtime.staged() as runtime_dir, ThreadPoolExecutor(max_workers=jobs or course.jobs) as pool:
        outcomes = dict(zip(folders, pool.map(probe, folders)))
    return {pid: _import_failure(pid, outcome, seconds) for pid, outcome in outcomes.items()
            if outcome.status not in (Status.OK, Status.INTERNAL_ERROR)}  # the grader's own failure: let the checks say


def _import_failure(pid: str, outcome: ChildRun, seconds: float) -> ChildRun:
    """The probe's failure as every check of ``pid`` reports it; ``seedless``, since the probe is told no seed."""
    if outcome.status == Status.STUDENT_ERROR:  # compile errors, exceptions, sys.exit: already worded for the student
        return replace(outcome, seedless=True)
    files = ", ".join(f"{m}.py" for m in PROJECTS[pid].modules)
    if outcome.status == Status.TIMEOUT or "of CPU" in outcome.message:
        what = (f"did not finish within {seconds:g} s (course.yml's limits.import_seconds), so no check of project "
                f"{pid} was run; look for code at the top level of your module that loops or trains, and put it "
                "under `if __name__ == '__main__':`")
    else:
        what = f"failed, so no check of project {pid} was run: {outcome.message}"
    return ChildRun(outcome.status, outcome.seconds, message=f"importing {files} {what}", kind="import", seedless=True)


def grade(path: str | Path, course: Course, seed_set: SeedSet = "grading", projects: list[str] | None = None,
          checks: list[str] | None = None, public_only: bool = False, jobs: int | None = None,
          progress=None, student: str | None = None, for_student: bool = True) -> Graded:
    """Grade the submission at ``path``. ``checks`` restricts to those ids; ``progress(what, done, total)`` hears
    grading start and each check end (a per-seed check when its last child ends).

    ``student`` is the student's id when known (grade-all's folder name, Gradescope's metadata, ``--student``): checks
    that depend on who the student is (C's own logs) judge with it and the course secret. ``for_student`` False (the
    TA's compare page) writes a report on the private grading seeds in full rather than blind (``secrecy.blind``).
    """
    path = Path(path)
    jail.check_isolation(course, seed_set)
    planned_checks = plan(path, course, seed_set, projects, checks, public_only, student)
    if progress:  # the number of checks from the start, never "0/?"
        progress("importing the modules", 0, sum(1 for item in planned_checks if item.folder is not None))
    failed = _failed_imports(course, planned_checks, jobs)
    runnable = [item.without_folder() if item.project in failed else item for item in planned_checks]
    grading = GradingRun(SubmissionBudget(course.limits.submission_seconds))  # this submission's budget and audits
    outcomes = _sandbox_runs(course, runnable, jobs, progress, grading)
    outcomes = [failed.get(item.project, outcome) for item, outcome in zip(planned_checks, outcomes)]
    if STOP.is_set():
        raise Stopped()
    blinded = for_student and seeds_are_private(course, seed_set)
    report = _report(path, course, seed_set, planned_checks, outcomes, blinded, grading)
    hidden = Hidden.of(course, seed_set)
    figures = {pid: [(redact_text(caption, hidden), image) for caption, image in shown]
               for pid, shown in figures_for(report).items()}
    return Graded(redacted(report, hidden, course.limits.message_chars), figures)


def seeds_are_private(course: Course, seed_set: SeedSet) -> bool:
    """Whether a grading is on the instructor's own grading seeds (a private overlay's): what a student sees of it is
    then made blind to everything the student's code produced (``secrecy.blind``). The bundled placeholder seeds are
    in the repository, so a report on them shows everything."""
    return seed_set == "grading" and course.private_overlay is not None


def _report(path: Path, course: Course, seed_set: SeedSet, checks: list[PlannedCheck], outcomes,
            blinded: bool = False, grading: GradingRun | None = None) -> Report:
    """Every planned check's entry, uncut (``secrecy.redacted`` cuts); a project's left-out files noted once.
    ``blinded``: every check run on the grading seeds is shown as ``secrecy.blind`` says."""
    report = Report(str(path), seed_set)
    for item, outcome in zip(checks, outcomes):
        missing = missing_folder(path, item.project)
        blind_here = blinded and item.context.seed_set == "grading"  # B.table runs on the public seeds whatever
        report.projects.setdefault(item.project, ProjectResult()).checks.append(
            _judged_uncut(item, outcome, course, missing, blind_here, grading))
    for pid, section in report.projects.items():
        with_failing_pieces(section.checks, {item.check_id: item.check.builds_on for item in checks})
        folder = project_folder(path, pid)
        left_out = staging.stage(folder, None) if folder else []
        section.notes = [f"left out of the graded copy of {PROJECTS[pid].folder}/: {n}" for n in left_out]
    return report


def judged(item: PlannedCheck, outcome: ChildRun | None, course: Course, missing: str = "",
           blinded: bool = False, grading: GradingRun | None = None) -> CheckResult:
    """One check's report entry from what its child handed back: judged when the run was ok, else its failure.
    ``blinded``: as a report on the private grading seeds shows it (``secrecy.blind``); ``grading``: what the
    grading run kept for the judge (None: the judge replays every run itself)."""
    entry = _judged_uncut(item, outcome, course, missing, blinded, grading)
    entry.message = cut(entry.message, course.limits.message_chars)
    return entry


def _judged_uncut(item: PlannedCheck, outcome: ChildRun | None, course: Course, missing: str = "",
                  blinded: bool = False, grading: GradingRun | None = None) -> CheckResult:
    """``judged`` before its message is cut (a report cuts after ``departures.with_failing_pieces`` and redaction)."""
    check, verdict = item.check, None
    if outcome is not None and outcome.status == Status.OK:
        try:
            verdict = declared(check, check.judge(outcome.payload(), replace(item.context, grading=grading)))
        except OutOfBudget as exc:  # the budget left no time for the grader's audit of the runs
            outcome, verdict = ChildRun(Status.TIMEOUT, outcome.seconds, message=str(exc)), None
        except (Malformed, StudentError) as exc:
            verdict = Verdict(0.0, MALFORMED.format(exc), not_run(Status.MALFORMED))
        except SHAPE_ERRORS as exc:  # data of a shape the judge did not expect: the reference never makes it
            verdict = Verdict(0.0, MALFORMED.format(f"{type(exc).__name__}: {exc}"), not_run(Status.MALFORMED))
        except Exception:  # noqa: BLE001 - a judging bug (UndeclaredDetails too) costs this check, never the report
            outcome = ChildRun(Status.INTERNAL_ERROR, outcome.seconds, message=traceback.format_exc(limit=-3))
    entry = _entry(item.check_id, check.name, item.points, outcome, verdict, missing, item.credit)
    if verdict is None and outcome is not None and outcome.status == Status.STUDENT_ERROR and outcome.data:
        entry = led_on_error(entry, check, outcome.data, item.context)
    if blinded:
        entry = blind(entry, outcome, item.project, check.grader_details, course.limits.processes)
    return entry


def figures_of(pid: str, details: dict, reference: dict | None = None) -> list[tuple[str, bytes | None]]:
    """Project ``pid``'s figures from its checks' details; a drawing that fails on a student's values becomes a
    note (a caption without an image), never the end of the report."""
    if not PROJECTS[pid].plots:
        return []
    try:
        return PROJECTS[pid].plots(details, reference=reference)
    except Exception as exc:  # noqa: BLE001 - the figures are an aid; the scores stand without them
        close_unfinished()
        return [(f"The figures of project {pid} could not be drawn from these results ({type(exc).__name__}: "
                 f"{str(exc)[:200]})", None)]


def figures_for(report: Report) -> dict[str, list]:
    """Each project's figures, drawn from its judged checks' details."""
    return {pid: figures_of(pid, section.figures_data()) for pid, section in report.projects.items()}
