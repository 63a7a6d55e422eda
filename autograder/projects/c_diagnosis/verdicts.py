"""Project C's verdicts: the student's labels for their own three logs, and ``diagnose`` on fresh runs the grader
trains itself with the seeds of the chosen set."""

from __future__ import annotations

from collections import Counter

from autograder.checks import Bar, Check, Malformed, Verdict, pairs
from autograder.projects.c_diagnosis import fresh, runs
from autograder.student import StudentError, describe


def label_of(value, what: str) -> str:
    if not isinstance(value, str) or value not in runs.LABELS:
        raise StudentError(f"{what}: expected one of {', '.join(runs.LABELS)}, found {describe(value)}", "invalid")
    return value


class OwnLabels(Check):
    id = "C.own_labels"
    grader_details = ("graded_against",)
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "Your verdict on your own three agents"

    class Bar(Bar):
        per_student: bool
        example_seed: int

    def collect(self, student, ctx):
        got = student.fn("my_labels")()
        if not isinstance(got, dict) or set(got) != set(runs.NAMES):
            raise StudentError(f"my_labels: expected a dict with keys {', '.join(runs.NAMES)}, found "
                               f"{describe(got) if not isinstance(got, dict) else sorted(map(str, got))}", "invalid")
        return {"labels": {name: label_of(got[name], f"my_labels()['{name}']") for name in runs.NAMES}}

    def judge(self, data, ctx):
        labels = data.get("labels")
        if not isinstance(labels, dict) or set(labels) != set(runs.NAMES):
            raise Malformed(f"expected a label for each of {', '.join(runs.NAMES)}")
        student = ctx.student if ctx.bar.per_student else None
        truth = runs.student_set(runs.student_key(student, ctx.secret, ctx.bar.example_seed))
        whose = f"student {student}'s logs" if student else "the bundled example logs"
        wrong = sum(data["labels"][name] != truth[name].label for name in runs.NAMES)
        if not wrong:
            return Verdict(1.0, f"all three right ({whose})", {"graded_against": whose})
        # how many, never which: naming the wrong agent would leave fewer answers to try in the next submission
        return Verdict(1 - wrong / len(runs.NAMES),
                       f"{wrong} of your {len(runs.NAMES)} labels {'is' if wrong == 1 else 'are'} wrong ({whose}); "
                       "which is not said: look at each agent's diagnostics again", {"graded_against": whose})


class FreshRuns(Check):
    id = "C.fresh_runs"
    credit = "per_case"  # a share of runs, seeds or table rows: partial results earn their share
    name = "diagnose names the fault of fresh runs the grader trains: every fault at two severities, and healthy"
    cost, per_seed = 12.0, True

    def prepare(self, ctx) -> str:
        """Grader side, before the child starts: the logs of this seed's runs, trained where no student code runs."""
        return str(fresh.fresh_logs(ctx.seed, ctx.secret))

    def collect(self, student, ctx):
        fn = student.fn("diagnose")
        labels = [label_of(fn(log), f"diagnose (run {i + 1})") for i, log in enumerate(fresh.unbundle(ctx.inputs))]
        return {"labels": labels}

    def judge(self, data, ctx):
        planned = [run for seed in ctx.seeds for run in runs.fresh_plan(seed, ctx.secret)]
        labels = [label for _, label in pairs(planned, data.get("labels"), "fresh runs")]
        if not all(isinstance(label, str) and label in runs.LABELS for label in labels):
            raise Malformed(f"expected one of {', '.join(runs.LABELS)} per run")
        return verdict_of(Counter((run.label, run.severity, label) for run, label in zip(planned, labels)))


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
    return Verdict(1 - sum(wrong.values()) / total, "; ".join(failures) or f"all {total} fresh runs labelled right",
                   {"counts": counts})
