"""What a check is: a named, pointed test of one piece of a project, split across the process boundary.

``collect`` runs in the sandboxed child, calls the student's code and returns plain data (numbers, lists, arrays).
``judge`` runs in the grader's own process and turns that data into a verdict, computing every graded number itself
(design principle 1): whatever the student's code prints or claims never reaches the score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autograder.config import CourseError, describe
from capstone_check.verdict import Verdict  # noqa: F401 - one verdict for both sides, named here for the checks


class Bar(BaseModel):
    """A check's thresholds and sizes, read from course.yml's ``bar:`` (unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ToleranceBar(Bar):
    """The bar of a check whose one threshold is how far the student's values may be from the reference's."""

    tolerance: float = Field(description="largest gap from the reference: absolute below 1, relative above")


class VerdictDetails(BaseModel):
    """The details a check's judge writes, for the checks whose figures (and the TA's compare view) read them: each
    key typed, with a ``Field(description=...)``. A verdict's details are checked against it when the verdict is made
    (``declared``); the figures read them back with ``drawn``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    @classmethod
    def drawn(cls, details) -> VerdictDetails | None:
        """``details`` as a figure reads them: by the declared names, a name the details lack as None, and None for
        no details at all. Not validated: a figure draws details as a report holds them (read back from disk, or
        cut to ``grader_details`` on the grading seeds), and turns whatever is not a number into a gap."""
        if not isinstance(details, dict) or not details:
            return None
        return cls.model_construct(**{name: details.get(name) for name in cls.model_fields})


class UndeclaredDetails(Exception):
    """A judge wrote details that its check's ``Details`` does not declare: the grader's bug, never the student's
    (grading reports it as its own failure)."""


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
    grading knows it, and the course secret of the private overlay) are given to ``judge`` only, never to the child,
    and so is ``grading``, what the grading run keeps for the grader's own work (``grading_run.GradingRun``: the
    budget, the early audits; None when a check is judged alone). ``key`` is what a check's ``key_for`` made of the
    submission and the course secret before its child started (B.table's secret sample of updates); the child is
    told it, never the secret.
    """

    seeds: tuple[int, ...]
    seed_set: str
    bar: Any
    inputs: str | None = None
    student: str | None = None
    secret: str | None = None
    grading: Any = None
    key: str | None = None
    loaded: Any = None  # in a child: what ``Check.read_inputs`` read of ``inputs`` before the student's code ran

    def plain(self) -> dict:
        """What crosses to the sandboxed child: seeds, seed set, bar, inputs and key, never ``student`` or
        ``secret``."""
        return {"seeds": list(self.seeds), "seed_set": self.seed_set, "bar": self.bar.model_dump(mode="json"),
                "inputs": self.inputs, "key": self.key}

    @classmethod
    def from_plain(cls, check: Check, plain: dict) -> Context:
        """The child's copy of the grader's context, its bar validated as every bar is (``validated_bar``)."""
        return cls(tuple(plain["seeds"]), plain["seed_set"], validated_bar(check, plain["bar"], check.id),
                   inputs=plain.get("inputs"), key=plain.get("key"))

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
    # what a verdict's details hold, for a check whose figures read them (a nested ``class Details(VerdictDetails)``
    # beside its ``Bar``); None: the details are free, read only by the compare view, which renders whatever is there
    Details: ClassVar[type[VerdictDetails] | None] = None
    # the checks of the pieces this check's runs are made of (A.bar's: A's pieces): a run that departs from them names
    # those that fail in the same grading, and the students' checker says final grading credits the row on them
    builds_on: ClassVar[tuple[str, ...]] = ()

    # prepare(ctx) -> path, optional: runs in the grader before the child starts and makes the child's input file
    # (e.g. logs of runs the grader trains); the child finds the path in ctx.inputs. It depends on the context only
    # (never on the submission), so a course may run it ahead of grading (plan.prepare_course, Gradescope's setup)
    # and it should keep what it makes where a later call finds it (C's run cache).
    # key_for(folder, secret) -> str, optional: runs in the grader when a submission's checks are planned, from the
    # submission's files (read as bytes, never run) and the course secret (None without one); the child and the
    # judge find it in ctx.key. B.table draws from it which updates the folder's pieces re-make. It is also called
    # with folder None when a course is prepared ahead of grading: a key prepare reads must not need the folder.
    # located_on_error(partial, ctx) -> statements, optional: where the output had departed when the student's code
    # raised, from the plain data collect attached to the StudentError (``partial``, as the child sent it: untrusted,
    # so any failure to read it says nothing); the statements are the check's vocabulary, as a verdict's are.
    # on_shard(data, ctx), optional: runs in the grader as soon as one child (one seed of a per-seed check) hands its
    # data back, while other children still run; it may start work ``judge`` will need (A.bar audits the run) but
    # never decides a grade: judge must redo whatever it finds missing. Runs no student code.

    def read_inputs(self, ctx: Context) -> Context:
        """In the child, before the student's modules are loaded (their code runs then): ``ctx`` with what the check
        reads of its inputs file as ``loaded``, so that code cannot change it first. Nothing by default."""
        return ctx

    def collect(self, student, ctx: Context) -> dict:
        raise NotImplementedError

    def judge(self, data: dict, ctx: Context) -> Verdict:
        raise NotImplementedError


class BarError(CourseError):
    """A bar that does not fit its check's ``Bar`` model; ``problems`` names each bad key, one line each."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def validated_bar(check: Check, bar: dict, where: str):
    """``bar`` as ``check``'s ``Bar`` model, or BarError naming each bad key below ``where`` (e.g.
    ``projects.D.checks.D.weights``). The one rule for a bar: course.yml's bars go through it once, where the course
    is loaded (the plan reuses the model, ``CheckConfig.typed_bar``); a child or an audit process rebuilds the
    grader's bar from the plain data it is handed with it, so no side can read a bar otherwise."""
    try:
        return check.Bar.model_validate(bar)
    except ValidationError as exc:
        raise BarError([f"{where}.bar.{describe(e)}" for e in exc.errors()]) from None



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
