"""course.yml: the typed model of a course (its schema), read and validated with errors that name the bad key.

The file says which projects run, every check with its points and its bar, the two seed sets and the sandbox limits.
An instructor's private overlay (``course.private.yml`` beside it, ``--private FILE`` or ``$AUTOGRADER_PRIVATE``)
may replace the grading seeds and set the course secret (which decides each student's logs in Project C), and
nothing else, so neither ever has to enter the repository.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from autograder import paths

SeedSet = Literal["public", "grading"]
Credit = Literal["all_or_nothing", "per_case"]


class CourseError(Exception):
    """course.yml (or its private overlay) is missing or invalid; the message names the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Limits(_Strict):
    wall_seconds: float = Field(gt=0, description="wall-time limit of one check's child process")
    memory_mb: int = Field(gt=0, description="memory of one check: each process's address space, and all its "
                           "processes together where the grader runs as root with cgroups")
    output_mb: int = Field(default=64, gt=0, description="largest stdout/stderr file a check may write")
    cpu_seconds: float = Field(default=120, gt=0, description="CPU-time limit of each process a check starts")
    processes: int = Field(default=64, gt=0, description="processes (and threads) a check may run at once")
    disk_mb: int = Field(default=256, gt=0, description="what one check may write in all, its home folder being a "
                         "tmpfs of this size where the grader runs as root (its pages count as the check's memory)")
    sandbox_uids: tuple[int, int] = Field(default=(61000, 61063), description="first and last uid a grader "
                                          "running as root hands out, one per running check")
    submission_seconds: float = Field(default=540, gt=0, description="time all checks of one submission may take "
                                      "together, counted as each check's own CPU time (a check stopped at its wall "
                                      "limit counts that wall time); checks it does not reach score 0 with a sentence")
    import_seconds: float = Field(default=20, gt=0, description="wall and CPU time of the one child per project "
                                  "that imports the student's modules before any check runs")
    result_mb: float = Field(default=2, gt=0, description="largest result a check's child may hand back")
    isolation: Literal["auto", "bubblewrap", "uid"] = Field(
        default="auto", description="how a check's child is isolated: bubblewrap namespaces where they work (auto, "
        "else the uid drop with a warning), bubblewrap only (an error where it cannot run), or the uid drop only")
    message_chars: int = Field(default=2000, gt=0, description="longest check message; longer ones are cut")

    @field_validator("sandbox_uids")
    @classmethod
    def _unprivileged_range(cls, uids):
        if not 0 < uids[0] <= uids[1]:
            raise ValueError("expected [first, last] with 0 < first <= last (uid 0 is root)")
        return uids


class CheckConfig(_Strict):
    points: float = Field(ge=0, description="what the check is worth; its verdict's share of cases decides how much "
                          "of it is earned (see credit)")
    public: bool = Field(default=True, description="run by `autograder check` on students' machines")
    wall_seconds: float | None = Field(default=None, gt=0, description="this check's own limits.wall_seconds")
    memory_mb: int | None = Field(default=None, gt=0, description="this check's own limits.memory_mb")
    result_mb: float | None = Field(default=None, gt=0, description="this check's own limits.result_mb")
    bar: dict[str, Any] = Field(default_factory=dict, description="the check's thresholds and sizes: the keys "
                                "its Bar declares, and only those")
    credit: Credit | None = Field(default=None, description="all_or_nothing: any failed case scores 0; per_case: the "
                                  "share of cases passed. Unset: the check's own default (all_or_nothing for unit "
                                  "checks, per_case for the stochastic bars)")
    _typed: tuple | None = PrivateAttr(default=None)  # (the bar as it was validated, its check's Bar model)

    def typed_bar(self, validate: Callable[[dict], Any]) -> Any:
        """The bar as its check's ``Bar`` model, made by ``validate`` once, where the course is loaded
        (``loader``); every check planned later, for every submission, gets that model. A copy of this config with
        another bar, or a bar changed in place, is validated again."""
        if self._typed is None or self._typed[0] != self.bar:
            self._typed = (copy.deepcopy(self.bar), validate(self.bar))
        return self._typed[1]


class ProjectConfig(_Strict):
    checks: dict[str, CheckConfig] = Field(description="the checks this course runs, by check id (A.gae, ...), each "
                                           "with its points and bar")
    skip: list[str] = Field(default_factory=list, description="the project's checks this course leaves out: every "
                            "check the project has is either listed under checks or named here")


MAX_SEED = 2**32 - 1  # the largest seed every numpy generator (legacy RandomState included) accepts
SeedList = list[Annotated[int, Field(ge=0, le=MAX_SEED, strict=True)]]


class Seeds(_Strict):
    """Each set is a list of 1 to 10 distinct seeds, in any order: every per-seed result is matched to its seed."""

    public: SeedList = Field(min_length=1, max_length=10, description="the seeds students see and check their "
                             "work with (autograder check)")
    grading: SeedList = Field(min_length=1, max_length=10, description="the seeds submissions are graded on; the "
                              "real ones belong in the private overlay, never in course.yml")

    @field_validator("public", "grading")
    @classmethod
    def _distinct(cls, seeds):
        repeats = [i + 1 for i, seed in enumerate(seeds) if seed in seeds[:i]]
        if repeats:  # named by position: the message may reach students (Gradescope shows a failed run's output)
            raise ValueError(f"expected distinct seeds; seed number {repeats[0]} of the list repeats an earlier one")
        return seeds


class Course(_Strict):
    course: str = Field(description="the course's name")
    seeds: Seeds = Field(description="the public and the grading seed sets")
    limits: Limits = Field(description="what one check's child process may use")
    jobs: int = Field(default=2, ge=1, description="checks run in parallel child processes")
    projects: dict[str, ProjectConfig] = Field(description="the projects this course runs, by project id (A, B, ...)")
    private_overlay: str | None = Field(default=None, description="set by the loader: which overlay was applied")
    secret: str | None = Field(default=None, description="from the private overlay only: decides each student's "
                                                         "own logs in Project C")

    def seeds_for(self, seed_set: SeedSet) -> list[int]:
        """The seeds of a set in increasing order: a seed set is a set, and the order the course lists it in must not
        change a report (judges pair per-seed results with this order, and one-seed checks use the first)."""
        return sorted(getattr(self.seeds, seed_set))

    def limits_for(self, project: str, check: str) -> Limits:
        cfg = self.projects[project].checks[check]
        return self.limits.model_copy(update={"wall_seconds": cfg.wall_seconds or self.limits.wall_seconds,
                                              "memory_mb": cfg.memory_mb or self.limits.memory_mb,
                                              "result_mb": cfg.result_mb or self.limits.result_mb})


def _read_yaml(path: Path, what: str) -> dict:
    import yaml  # here, not at the top: a check's child imports this module and never reads YAML

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CourseError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CourseError(f"{what} {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise CourseError(f"{what} {path}: expected a mapping of keys at the top level, found {type(data).__name__}")
    return data


def describe(error: dict) -> str:
    where = ".".join(str(part) for part in error["loc"])
    if tuple(error["loc"][:2]) == ("seeds", "grading"):  # never echo a grading seed: the message may reach students
        return f"{where}: {error['msg']}"
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    if error["type"] == "missing":
        return f"{where}: required key is missing"
    return f"{where}: {error['msg']} (found {error.get('input')!r})"


def _from_overlay(error: dict, overlay_file: Path | None) -> str:
    """Where a bad grading seed came from, when the overlay set it: course.yml's own would be the wrong place to
    look."""
    if overlay_file is not None and tuple(error["loc"][:2]) == ("seeds", "grading"):
        return f" (set by the private overlay {overlay_file})"
    return ""


def _overlay_path(private: str | Path | None | bool, course_file: Path) -> Path | None:
    if private is False:
        return None
    if private is not None:
        return Path(private)
    beside = course_file.parent / paths.PRIVATE_NAME
    named = os.environ.get("AUTOGRADER_PRIVATE")
    if named and beside.exists() and Path(named).resolve() != beside.resolve():
        raise CourseError(f"two private overlays: $AUTOGRADER_PRIVATE names {named}, and the course folder holds "
                          f"{beside}; remove one, or name the one to use with --private FILE")
    if named:
        return Path(named)
    return beside if beside.exists() else None


def _apply_overlay(data: dict, overlay_file: Path) -> dict:
    overlay = _read_yaml(overlay_file, "private overlay")
    seeds = overlay.get("seeds")
    secret = overlay.get("secret")
    if (set(overlay) - {"secret"} != {"seeds"} or not isinstance(seeds, dict) or set(seeds) != {"grading"}
            or ("secret" in overlay and not (isinstance(secret, str) and secret))):
        found = ", ".join(sorted(overlay)) + (f" (seeds: {', '.join(map(str, seeds))})"
                                              if isinstance(seeds, dict) else "")
        raise CourseError(f"private overlay {overlay_file}: expected only `seeds: {{grading: [...]}}` and optionally "
                          f"`secret: <text>`, found {found}")
    merged = dict(data)
    merged["seeds"] = {**(data.get("seeds") or {}), "grading": overlay["seeds"]["grading"]}
    if secret is not None:
        merged["secret"] = secret
    merged["private_overlay"] = str(overlay_file)
    return merged


def course_path(path: str | Path | None) -> Path:
    """``path``, or by default the course folder's course.yml at or above the working directory."""
    try:
        return Path(path) if path is not None else paths.course_file()
    except paths.CourseNotFound as exc:
        raise CourseError(str(exc)) from None


def read_course(path: str | Path | None = None, private: str | Path | None | bool = None) -> Course:
    """Read course.yml (by default the course folder's at or above the working directory), apply the private overlay,
    validate it against the schema. The schema knows no project: ``loader.load_course`` checks the projects, checks
    and bars against the registered projects, and is what the kit calls.

    ``private`` names the overlay; None looks for it ($AUTOGRADER_PRIVATE, then course.private.yml beside the course
    file); False skips it.
    """
    path = course_path(path)
    data = _read_yaml(path, "course file")
    if "secret" in data:
        raise CourseError(f"{path}: secret: belongs in the private overlay (course.private.yml), "
                          "never in the course file")
    overlay_file = _overlay_path(private, path)
    if overlay_file is not None:
        data = _apply_overlay(data, overlay_file)
    try:
        course = Course.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(f"  {describe(e)}{_from_overlay(e, overlay_file)}" for e in exc.errors())
        raise CourseError(f"{path} is not valid:\n{problems}") from None
    return course
