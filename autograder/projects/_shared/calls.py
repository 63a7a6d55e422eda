"""A check of calls, written once (``once.WrittenOnce``): its ``spec`` makes the cases from the seed, says how the
student's functions are called on them and what each call must give. Its child runs
``capstone_check.calling.collect_calls`` on the calls' inputs alone, and its judge is
``capstone_check.calls.judge_calls`` on what came back, as the students' checker's ``run_calls`` does.
"""

from __future__ import annotations

from autograder.checks import ToleranceBar
from autograder.findings import recorded_mistakes
from autograder.projects._shared.once import WrittenOnce
from capstone_check.calling import collect_calls, inputs_of
from capstone_check.calls import error_said, judge_calls
from capstone_check.own_lines import collect_through


class CallsCheck(WrittenOnce):
    """Subclass per check: set ``id``, ``name``, ``mistakes`` (the project's catalogue) and write ``spec``, which
    returns ``{"kind": "calls", "calls": [...], "total", "passed", ...}`` (``capstone_check.calls`` says what a call
    holds)."""

    Bar = ToleranceBar

    def completed(self, spec: dict) -> dict:
        """With the values of each known mistake of its pieces beside each call."""
        return recorded_mistakes(spec, self.mistakes)

    def inputs(self, spec: dict, ctx) -> dict:
        """The calls' inputs and the form of each output; the stand-ins' records on the public seeds only."""
        return inputs_of(spec, records=ctx.seed_set == "public")

    def gather(self, student, inputs: dict) -> dict:
        collected = collect_calls(student, inputs)
        return {**collected, "through": collect_through(student, inputs)} if "through" in inputs else collected

    def decide(self, spec: dict, data):
        return judge_calls(spec, data)

    def located_on_error(self, partial, ctx) -> list[dict]:
        """Where the output had departed when the student's code raised: the piece a composite departs through, the
        feature of the calls the child says it raised on."""
        return error_said(self.full_spec(ctx), partial)
