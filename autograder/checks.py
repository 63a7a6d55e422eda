"""What a check is: a named, pointed test of one piece of a project, split across the process boundary.

``collect`` runs in the sandboxed child, calls the student's code and returns plain data (numbers, lists, arrays).
``judge`` runs in the grader's own process and turns that data into a verdict, computing every graded number itself
(design principle 1): whatever the student's code prints or claims never reaches the score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError


class Bar(BaseModel):
    """A check's thresholds and sizes, read from course.yml's ``bar:`` (unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Details(BaseModel):
    """The details a check's judge writes, for the checks whose figures (and the TA's compare view) read them: each
    key typed, with a ``Field(description=...)``. A verdict's details are checked against it when the verdict is made
    (``declared``); the figures read them back with ``drawn``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    @classmethod
    def drawn(cls, details) -> Details | None:
        """``details`` as a figure reads them: by the declared names, a name the details lack as None, and None for
        no details at all. Not validated: a figure draws details as a report holds them (read back from disk, or
        cut to ``grader_details`` on the grading seeds), and turns whatever is not a number into a gap."""
        if not isinstance(details, dict) or not details:
            return None
        return cls.model_construct(**{name: details.get(name) for name in cls.model_fields})


class UndeclaredDetails(Exception):
    """A judge wrote details that its check's ``Details`` does not declare: the grader's bug, never the student's
    (grading reports it as its own failure)."""


def numbers(value) -> np.ndarray | None:
    """``value`` as a float array, or None when it is not numbers, is ragged, or holds NaN or inf.

    Every comparison a judge makes goes through this: NaN compares false both ways, so a judge that only asks
    "is it too far?" would let NaN through. Here a number that is not finite fails every comparison.
    """
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # ragged
        return None
    if array.dtype.kind not in "biuf":  # text, None, or objects, whatever numpy would make of them
        return None
    array = array.astype(float)
    return array if np.all(np.isfinite(array)) else None


def close(got, want, tolerance: float) -> bool:
    """Same shape, finite, and every entry within ``tolerance`` (absolute below 1, relative above): how judges
    compare."""
    got, want = numbers(got), np.asarray(want, dtype=float)
    return got is not None and got.shape == want.shape and _within(got, want, tolerance)


def close_where_defined(got, want, tolerance: float) -> bool:
    """``close`` for statistics that are undefined on some inputs: ``want`` may hold NaN, and ``got`` must hold NaN
    exactly there and be close everywhere else."""
    try:
        got, want = np.asarray(got, float), np.asarray(want, float)
    except (TypeError, ValueError):  # ragged or not numbers: close to nothing
        return False
    if got.shape != want.shape or not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    defined = ~np.isnan(want)
    return _within(got[defined], want[defined], tolerance)


def _within(got: np.ndarray, want: np.ndarray, tolerance: float) -> bool:
    return bool(np.all(np.abs(got - want) <= tolerance * np.maximum(1, np.abs(want))))


def all_close(got, want: list, tolerance: float) -> bool:
    """A list with one entry per entry of ``want``, each ``close`` to it."""
    return isinstance(got, list) and len(got) == len(want) and all(close(g, w, tolerance) for g, w in zip(got, want))


def difference(got, want) -> str:
    """The largest absolute difference, as a message says it (NaN entries, where both are undefined, left out)."""
    gaps = np.abs(np.asarray(got, float) - np.asarray(want, float))
    return f"max |difference| {np.nanmax(gaps) if np.any(~np.isnan(gaps)) else float('nan'):.3g}"


def apart(got, want, tolerance: float) -> bool:
    """Whether ``got`` differs from ``want`` by more than ``tolerance`` (absolute) anywhere, has another shape, or is
    not finite numbers."""
    array = numbers(got)
    return array is None or array.shape != np.shape(want) or bool(np.any(np.abs(array - want) > tolerance))


def beyond(value, limit: float) -> bool:
    """Whether ``value`` (a number or numbers) exceeds ``limit`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array > limit))


def below(value, floor: float) -> bool:
    """Whether ``value`` (a number or numbers) falls short of ``floor`` anywhere, or is not finite numbers at all."""
    array = numbers(value)
    return array is None or bool(np.any(array < floor))


class Malformed(Exception):
    """The data a judge was handed is not what ``collect`` returns: student code altered the grader in its child, or
    wrote the result file itself. Scored 0 for the student, never reported as the grader's failure."""


def pairs(cases, got, what: str = "cases"):
    """``zip(cases, got)`` that insists on one result per case: a shortened list must not skip the comparison."""
    cases = list(cases)
    if not isinstance(got, list) or len(got) != len(cases):
        found = f"{len(got)} results" if isinstance(got, list) else type(got).__name__
        raise Malformed(f"expected {len(cases)} results for the {what}, found {found}")
    return zip(cases, got)


def require(data, key: str, kind: type | tuple):
    """``data[key]`` if it is a ``kind``; anything else is Malformed, since ``collect`` never returns it."""
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, kind):
        raise Malformed(f"expected {key!r} in the collected data, found {type(value).__name__}")
    return value


@dataclass(frozen=True)
class Context:
    """What a check is told: the seeds of the chosen set and its bar.

    ``inputs`` is the file a check's ``prepare`` made for its child. ``student`` and ``secret`` (the student's id when
    grading knows it, and the course secret of the private overlay) are given to ``judge`` only, never to the child.
    """

    seeds: tuple[int, ...]
    seed_set: str
    bar: Any
    inputs: str | None = None
    student: str | None = None
    secret: str | None = None

    def plain(self) -> dict:
        """What crosses to the sandboxed child: seeds, seed set, bar and inputs, never ``student`` or ``secret``."""
        return {"seeds": list(self.seeds), "seed_set": self.seed_set, "bar": self.bar.model_dump(mode="json"),
                "inputs": self.inputs}

    @classmethod
    def from_plain(cls, check: Check, plain: dict) -> Context:
        """The child's copy of the grader's context, its bar validated as every bar is (``config.validated_bar``)."""
        from autograder.config import validated_bar

        return cls(tuple(plain["seeds"]), plain["seed_set"], validated_bar(check, plain["bar"], check.id),
                   inputs=plain.get("inputs"))

    @property
    def seed(self) -> int:
        """The seed of a check that makes its inputs from one: the smallest, so that the order in which a course lists
        its seeds never changes what is graded (``Course.seeds_for`` hands them out sorted; a per-seed check's child
        is told just its own)."""
        return min(self.seeds)

    def seeds_shown(self) -> str:
        """The seeds as a message may name them: public ones by value, grading ones by count only (students read
        every message, and the grading seeds are the instructor's secret)."""
        if self.seed_set == "public":
            return f"seeds {list(self.seeds)}"
        return f"the {len(self.seeds)} grading seed{'s' * (len(self.seeds) != 1)}"

    def seed_shown(self, seed: int) -> str:
        """One seed as a message may name it: ``seed 7``, or ``grading seed 2 of 3``."""
        if self.seed_set == "public":
            return f"seed {seed}"
        return f"grading seed {self.seeds.index(seed) + 1} of {len(self.seeds)}"


@dataclass
class Verdict:
    """A check's outcome: ``fraction`` of its points, a message for the student, and details for the report."""

    fraction: float
    message: str
    details: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)  # the known mistakes recognised (``autograder.findings.Finding``)

    @classmethod
    def of(cls, failures: list[str], total: int, passed_message: str, note: str = "", findings=(),
           **details) -> Verdict:
        """Partial credit: the share of ``total`` sub-tests that did not fail; the first failures as the message,
        after ``note`` (a hint or what did pass, said first and not counted as a failure). ``findings`` are kept
        only for a verdict that failed something."""
        if not failures:
            return cls(1.0, passed_message, details)
        shown = "; ".join(([note] if note else []) + failures[:3])
        shown += f"; and {len(failures) - 3} more" if len(failures) > 3 else ""
        return cls(max(0.0, 1 - len(failures) / total), shown, details, list(dict.fromkeys(findings)))


class Check:
    """Subclass per check: set ``id``, ``name``, ``Bar``; implement ``collect`` and ``judge``.

    A ``per_seed`` check is run in one child per seed, each told one seed; the lists its ``collect`` returns are
    joined in seed order before ``judge`` sees them, so ``judge`` is written as if one child had run every seed.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    Bar: ClassVar[type[Bar]] = Bar
    cost: ClassVar[float] = 1.0  # rough seconds per seed-run, so long checks start first
    per_seed: ClassVar[bool] = False  # run once per seed in parallel children; collect returns lists over seeds
    fixed_seeds: ClassVar[str | None] = None  # "public": always run on the public seeds, whichever set is graded
    # the details a report on the private grading seeds keeps: numbers the grader computed itself, never ones the
    # student's code handed back (``secrecy.blind``)
    grader_details: ClassVar[tuple[str, ...]] = ()
    # how a verdict's fraction becomes points unless course.yml says otherwise: "all_or_nothing" (a piece is right or
    # wrong: any failed case costs the whole check) or "per_case" (the share of cases passed, for stochastic bars)
    credit: ClassVar[str] = "all_or_nothing"
    # what a verdict's details hold, for a check whose figures read them (a nested ``class Details(Details)`` beside
    # its ``Bar``); None: the details are free, read only by the compare view, which renders whatever is there
    Details: ClassVar[type[Details] | None] = None

    # prepare(ctx) -> path, optional: runs in the grader before the child starts and makes the child's input file
    # (e.g. logs of runs the grader trains); the child finds the path in ctx.inputs. It depends on the context only
    # (never on the submission), so a course may run it ahead of grading (plan.prepare_course, Gradescope's setup)
    # and it should keep what it makes where a later call finds it (C's run cache).
    # on_shard(data, ctx), optional: runs in the grader as soon as one child (one seed of a per-seed check) hands its
    # data back, while other children still run; it may start work ``judge`` will need (A.bar audits the run) but
    # never decides a grade: judge must redo whatever it finds missing. Runs no student code.

    def collect(self, student, ctx: Context) -> dict:
        raise NotImplementedError

    def judge(self, data: dict, ctx: Context) -> Verdict:
        raise NotImplementedError


def declared(check: Check, verdict: Verdict) -> Verdict:
    """``verdict``, once its details are found to be what ``check.Details`` declares (a check without one declares
    nothing); else ``UndeclaredDetails``. The details stay the dict the judge wrote, so the report is unchanged."""
    if check.Details is not None:
        try:
            check.Details.model_validate(verdict.details)
        except ValidationError as exc:  # said on one line, naming keys and what is wrong, never the values
            wrong = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'details'}: {e['msg']}" for e in exc.errors())
            raise UndeclaredDetails(f"{check.id}'s judge wrote details its Details does not declare: {wrong}") from None
    return verdict


@dataclass(frozen=True)
class Project:
    """One capstone: its folder in a submission, the student modules to load, its checks and its plots, and what the
    rest of the kit must know about it (the core names no project: release, nbgrader and the CLI ask these fields).

    ``made_by_students``: files the reference's own run leaves in its folder that each student makes from their own
    run (B's results.json): never released, never copied from the source into a student's folder.
    ``copies``: files of the folder that are copies of another project's (B's ``ppo.py`` is A's), kept equal on release.
    ``own_files``: files each student is handed personally (C's logs): nbgrader keeps the student's, never the source's.
    ``knows_student``: the checks judge with the student's id and the course secret (C's own logs); other projects'
    checks are never told either.
    ``commands``: ``commands(subparsers, course_option)`` adds the project's own CLI commands (C's ``c-logs``).
    ``needs_secret``: ``needs_secret(project_config)`` says, in a sentence, why a course configured so cannot grade
    the project without the course secret (C's per-student logs), or None when it can.
    """

    id: str
    title: str
    folder: str
    modules: tuple[str, ...]
    checks: dict[str, Check]
    plots: Callable[..., list] | None = None  # plots(details by check id, reference=None) -> [(caption, png)]
    made_by_students: tuple[str, ...] = ()
    copies: dict[str, str] = field(default_factory=dict)  # file in this folder -> "<folder>/<file>" it copies
    own_files: tuple[str, ...] = ()
    knows_student: bool = False
    commands: Callable[..., None] | None = None
    needs_secret: Callable[..., str | None] | None = None

    @classmethod
    def of(cls, id: str, title: str, folder: str, modules: tuple[str, ...], checks: list[type[Check]],
           plots=None, **specifics) -> Project:
        return cls(id, title, folder, modules, {c.id: c() for c in checks}, plots, **specifics)
