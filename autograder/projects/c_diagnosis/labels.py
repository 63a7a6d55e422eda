"""Project C's label checks: the student's labels for their own three logs, and ``diagnose`` on fresh runs the grader
trains itself with the seeds of the chosen set."""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from autograder.checks import Bar, Check, Malformed, Verdict, VerdictDetails
from autograder.findings import computed, of_piece
from autograder.projects._shared.encode import mistakes_as_values
from autograder.projects._shared.once import WrittenOnce
from autograder.projects.c_diagnosis import boundary, edges, fresh, run_plan
from autograder.projects.c_diagnosis.mistakes import MISTAKES
from autograder.projects.c_diagnosis.public.diagnose import (collect_at_the_lines, collect_fresh_runs,
                                                             judge_at_the_lines, judge_fresh_runs)
from autograder.projects.c_diagnosis.public.diagnose import label_of as public_label_of
from capstone_check.student import StudentError, describe


def label_of(value, what: str) -> str:
    return public_label_of(value, run_plan.LABELS, what)


class OwnLabels(Check):
    id = "C.own_labels"
    grader_details = ("graded_against",)
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "Your verdict on your own three agents"

    class Bar(Bar):
        per_student: bool = Field(description="own logs per student (autograder c-logs); false: the example set")
        example_seed: int = Field(description="the example logs' seed, as `autograder c-logs --example` uses it")

    def collect(self, student, ctx):
        got = student.fn("my_labels")()
        if not isinstance(got, dict) or set(got) != set(run_plan.NAMES):
            raise StudentError(f"my_labels: expected a dict with keys {', '.join(run_plan.NAMES)}, found "
                               f"{describe(got) if not isinstance(got, dict) else sorted(map(str, got))}", "invalid")
        return {"labels": {name: label_of(got[name], f"my_labels()['{name}']") for name in run_plan.NAMES}}

    def judge(self, data, ctx):
        labels = data.get("labels")
        if not isinstance(labels, dict) or set(labels) != set(run_plan.NAMES):
            raise Malformed(f"expected a label for each of {', '.join(run_plan.NAMES)}")
        student = ctx.student if ctx.bar.per_student else None
        if student is not None and not ctx.secret:  # the grader's fault, said as such (never the student's 1/3)
            raise RuntimeError(NO_SECRET)
        truth = run_plan.student_set(run_plan.student_key(student, ctx.secret, ctx.bar.example_seed))
        whose = whose_logs(student, ctx.bar.per_student)
        wrong = sum(data["labels"][name] != truth[name].label for name in run_plan.NAMES)
        if not wrong:
            return Verdict(1.0, f"all three right ({whose})", {"graded_against": whose})
        # how many, never which: naming the wrong agent would leave fewer answers to try in the next submission
        return Verdict(1 - wrong / len(run_plan.NAMES),
                       f"{wrong} of your {len(run_plan.NAMES)} labels {'is' if wrong == 1 else 'are'} wrong ({whose}); "
                       "which is not said: look at each agent's diagnostics again", {"graded_against": whose})


NO_SECRET = ("this grader has no course secret, so it cannot tell which of a student's own logs holds which fault; "
             "the instructor builds the autograder with the overlay holding the secret that `autograder c-logs` used")


def whose_logs(student: str | None, per_student: bool) -> str:
    """Whose three logs C.own_labels judged, as the table and the page say it."""
    if student is not None:
        return f"student {student}'s own logs"
    if per_student:  # a course of personal logs graded without a student id: say so, and how to name one
        return "the bundled example logs (no student id was given: `grade --student ID` grades a student's own)"
    return "the bundled example logs"


def needs_secret(project) -> str | None:
    """Why a course whose Project C is configured as ``project`` (its ProjectConfig) needs the course secret."""
    check = project.checks.get(OwnLabels.id)
    if check is None or not check.bar.get("per_student", False):
        return None
    return ("Project C's logs are per student (course.yml: C.own_labels, per_student: true), and which log holds "
            "which fault follows from the student's id and the course secret")


class Count(BaseModel):
    """How many fresh runs of one fault and severity got one label (never which runs: see ``verdict_of``)."""

    model_config = ConfigDict(extra="forbid")
    truth: str = Field(description="the runs' true fault, or healthy")
    severity: int = Field(description="1 for the milder fault (and the PPO healthy agent), 2 for the stronger")
    label: str = Field(description="the label diagnose gave them")
    runs: int = Field(description="how many runs")


class FreshRuns(WrittenOnce):
    """Written once: ``public.diagnose`` collects and judges, here and in the students' kit. The child reads the logs
    of its seed's runs, trained and shaped in the grader before it starts (``prepare``); the spec, which never leaves
    the grader, holds what each run is."""

    id = "C.fresh_runs"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "diagnose names the fault of fresh runs the grader trains: every fault at two severities, and healthy"
    cost, per_seed = 12.0, True

    class Details(VerdictDetails):
        counts: list[Count] = Field(description="runs per (truth, severity, label), sorted: counts only, in the "
                                    "figure too, so that no report tells which call of diagnose was which run")

    def spec(self, ctx) -> dict:
        """Per fresh run of the context's seeds, in plan order: its truth and its severity, and what each known
        mistake of ``diagnose`` labels the runs. Every run is labelled shaped to its label's edges (``edges``), so
        a `diagnose` that reads a statistic otherwise than the README labels every run of a kind alike, whatever run
        a seed trained. On the public seeds also the students' kit's file of the shaped runs."""
        runs, logs = [], []
        for seed in ctx.seeds:
            runs += [[run.label, run.severity] for run in run_plan.fresh_plan(seed, ctx.secret)]
            logs += fresh.unbundle(edges.shaped_logs(seed, ctx.secret))
        spec = {"kind": "c_fresh_runs", "labels": list(run_plan.LABELS), "runs": runs, **labelled_by_mistakes(logs)}
        if ctx.seed_set != "public":
            return spec
        return {**spec, "logs": LOGS, "_files": {LOGS: fresh.bundle(logs)}}

    def prepare(self, ctx) -> str:
        """Grader side, before the child starts: this seed's runs shaped to their edges, trained and shaped where no
        student code runs."""
        return str(edges.shaped_logs(ctx.seed, ctx.secret))

    def read_inputs(self, ctx):
        return replace(ctx, loaded={"labels": list(run_plan.LABELS), "logs": fresh.unbundle(ctx.inputs)})

    def gather(self, student, inputs: dict) -> dict:
        return collect_fresh_runs(student, inputs)

    def decide(self, spec: dict, data) -> Verdict:
        return judge_fresh_runs(spec, data)


LOGS = "C.fresh_runs.npz"  # the students' kit's file of the public runs, shaped


def labelled_by_mistakes(logs: list[dict]) -> dict:
    """What each known mistake of ``diagnose`` labels ``logs``, as indices into the labels (a mistake is named when
    the student's labels are all its own), with the mistakes' sentences; a mistake that cannot label every log is
    left out."""
    outputs = {}
    for mistake in of_piece(MISTAKES, "diagnose"):
        labels = [computed(mistake.variant, log) for log in logs]
        if all(label in run_plan.LABELS for label in labels):
            outputs[mistake.id] = [run_plan.LABELS.index(label) for label in labels]
    return mistakes_as_values(MISTAKES, outputs)


class DiagnoseRules(WrittenOnce):
    """Written once, as C.fresh_runs is: ``public.diagnose`` collects and judges, here and in the students' kit. The
    child reads the logs at the lines of the smallest seed, built in the grader before it starts (``prepare``); the
    spec, which never leaves the grader, holds what each log is and the lesson it teaches."""

    id = "C.diagnose_rules"
    builds_on = ("C.fresh_runs",)  # its logs are fresh runs: a row that fails both is led by C.fresh_runs
    name = ("diagnose at the course's lines: fresh runs pushed just beyond a line where a label changes, and a "
            "saturated policy whose critic fails too")

    def spec(self, ctx) -> dict:
        """Per log at the lines of the context's smallest seed, in the order the child sees them: its name and its
        truth; each log's lesson, and what each known mistake of ``diagnose`` labels the logs. On the public seeds also
        the students' kit's file of the logs."""
        planned = boundary.plan(ctx.seed, ctx.secret)
        logs = fresh.unbundle(boundary.boundary_logs(ctx.seed, ctx.secret))
        spec = {"kind": "c_at_the_lines", "labels": list(run_plan.LABELS),
                "at_the_lines": [[b.name, b.label] for b in planned],
                "lessons": {b.name: boundary.LESSONS[b.name] for b in planned}, **labelled_by_mistakes(logs)}
        if ctx.seed_set != "public":
            return spec
        return {**spec, "logs": AT_THE_LINES, "_files": {AT_THE_LINES: fresh.bundle(logs)}}

    def prepare(self, ctx) -> str:
        """Grader side: the logs at the lines of the smallest seed, built from its fresh runs (boundary.py)."""
        return str(boundary.boundary_logs(ctx.seed, ctx.secret))

    def read_inputs(self, ctx):
        return replace(ctx, loaded={"labels": list(run_plan.LABELS), "logs": fresh.unbundle(ctx.inputs)})

    def gather(self, student, inputs: dict) -> dict:
        return collect_at_the_lines(student, inputs)

    def decide(self, spec: dict, data) -> Verdict:
        return judge_at_the_lines(spec, data)


AT_THE_LINES = "C.diagnose_rules.npz"  # the students' kit's file of the smallest public seed's logs at the lines
