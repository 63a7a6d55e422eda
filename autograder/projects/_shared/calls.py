"""A check of single pieces, written once: its ``spec`` makes the cases from the seed, says how the student's functions
are called on them and what each call must give (the oracle's outputs, the known mistakes' values). Its child runs
``capstone_check.calls.collect_calls`` on the calls' inputs alone, and its judge is ``capstone_check.calls.judge_calls``
on what came back. The students' checker runs the same collector and the same judge on the spec recorded at release on
the public seeds, so on those seeds its row is this row.
"""

from __future__ import annotations

import json
import threading
from typing import ClassVar

from autograder.checks import Check, ToleranceBar
from autograder.findings import Finding, recorded_mistakes
from autograder.projects._shared.stand_ins import records_file
from capstone_check.calling import collect_calls, inputs_of
from capstone_check.calls import error_said, judge_calls
from capstone_check.own_lines import collect_through

_specs: dict[tuple, dict] = {}  # (check, seed set, seeds, bar) -> its spec, made once per process
_inputs: dict[tuple, str] = {}  # the same key -> the file of the calls' inputs the child reads
_lock = threading.Lock()  # checks are prepared and judged from several threads


class CallsCheck(Check):
    """Subclass per check: set ``id``, ``name``, ``mistakes`` (the project's catalogue) and write ``spec``."""

    Bar = ToleranceBar
    mistakes: ClassVar[dict] = {}

    def spec(self, ctx) -> dict:
        """The check's calls on the context's seed: ``{"kind": "calls", "calls": [...], "total", "passed", ...}``
        (``capstone_check.calls`` says what a call holds)."""
        raise NotImplementedError

    def full_spec(self, ctx) -> dict:
        """``spec(ctx)`` with the values of each known mistake of its pieces beside each call, made once."""
        key = self._key(ctx)
        with _lock:
            if key not in _specs:
                _specs[key] = recorded_mistakes(self.spec(ctx), self.mistakes)
            return _specs[key]

    def prepare(self, ctx) -> str:
        """The calls' inputs, and the form of each output, as the child's file: never what a call must give."""
        key = self._key(ctx)
        spec = self.full_spec(ctx)
        with _lock:
            if key not in _inputs:
                _inputs[key] = records_file(inputs_of(spec, records=ctx.seed_set == "public"))
            return _inputs[key]

    def collect(self, student, ctx) -> dict:
        with open(ctx.inputs, encoding="utf-8") as inputs:  # read before any of the student's code is loaded
            spec = json.load(inputs)
        collected = collect_calls(student, spec)
        return {**collected, "through": collect_through(student, spec)} if "through" in spec else collected

    def judge(self, data, ctx):
        verdict = judge_calls(self.full_spec(ctx), data)
        verdict.findings = [Finding(**finding) for finding in verdict.findings]
        return verdict

    def located_on_error(self, partial, ctx) -> list[dict]:
        """Where the output had departed when the student's code raised: the piece a composite departs through, the
        feature of the calls the child says it raised on."""
        return error_said(self.full_spec(ctx), partial)

    def _key(self, ctx) -> tuple:
        return self.id, ctx.seed_set, tuple(ctx.seeds), ctx.bar.model_dump_json()
