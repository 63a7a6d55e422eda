"""A check written once, for final grading and the students' checker alike. Its ``spec(ctx)`` makes the cases from the
seed and holds what they must give (the oracle's outputs, the known mistakes' values). ``inputs`` keeps of it what the
child reads, never an answer; ``gather`` runs in the child on those inputs alone; ``decide`` turns what came back
into the row, on the whole spec. The students' checker records ``spec`` at release on the public seeds and runs the
same two halves of ``capstone_check`` in one child, so on those seeds its row is this row.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import replace
from typing import ClassVar

from autograder.checks import Check, Malformed
from autograder.findings import Finding
from autograder.projects._shared.stand_ins import records_file
from capstone_check.student import StudentError

_specs: dict[tuple, dict] = {}  # (check, seed set, seeds, bar, secret's digest) -> its spec, made once per process
_inputs: dict[tuple, str] = {}  # the same key -> the file of the inputs the child reads
_lock = threading.Lock()  # checks are prepared and judged from several threads


class WrittenOnce(Check):
    """Subclass per kind of check: ``inputs``, ``gather`` and ``decide`` are ``capstone_check``'s; each check then
    sets ``id``, ``name``, ``Bar`` and writes ``spec``."""

    mistakes: ClassVar[dict] = {}  # the project's catalogue, for a kind that records its mistakes' values

    def spec(self, ctx) -> dict:
        """What the students' checker records of this check on the context's seed (``kind`` and all)."""
        raise NotImplementedError

    def inputs(self, spec: dict, ctx) -> dict:
        """What the child reads of ``spec``: never what a case must give."""
        raise NotImplementedError

    def gather(self, student, inputs: dict) -> dict:
        """In the child: what the student's code gives on the inputs, as plain data."""
        raise NotImplementedError

    def decide(self, spec: dict, data) -> object:
        """In the grader: the verdict on ``data`` (untrusted: sent by the child) against the whole spec."""
        raise NotImplementedError

    def completed(self, spec: dict) -> dict:
        """``spec`` as the judge reads it (a check of calls adds its mistakes' values); as it is by default."""
        return spec

    def full_spec(self, ctx) -> dict:
        """``completed(spec(ctx))``, made once per context."""
        key = self._key(ctx)
        with _lock:
            if key not in _specs:
                _specs[key] = self.completed(self.spec(ctx))
            return _specs[key]

    def prepare(self, ctx) -> str:
        """The inputs as the child's file, made once per context."""
        key = self._key(ctx)
        spec = self.full_spec(ctx)
        with _lock:
            if key not in _inputs:
                _inputs[key] = records_file(self.inputs(spec, ctx))
            return _inputs[key]

    def read_inputs(self, ctx):
        """The inputs file, read in the child before the student's modules load: their code cannot change it first."""
        with open(ctx.inputs, encoding="utf-8") as inputs:
            return replace(ctx, loaded=json.load(inputs))

    def collect(self, student, ctx) -> dict:
        return self.gather(student, (ctx if ctx.loaded is not None else self.read_inputs(ctx)).loaded)

    def judge(self, data, ctx):
        try:
            verdict = self.decide(self.full_spec(ctx), data)
        except StudentError as exc:  # the judge refuses data of a form the collector never sends
            raise Malformed(str(exc)) from None
        verdict.findings = [Finding(**finding) for finding in verdict.findings]
        return verdict

    def _key(self, ctx) -> tuple:
        """A spec may turn on the course secret (C's fresh runs: their order): the key holds its digest, never it."""
        secret = hashlib.sha256((ctx.secret or "").encode()).hexdigest() if ctx.secret else None
        return self.id, ctx.seed_set, tuple(ctx.seeds), ctx.bar.model_dump_json(), secret
