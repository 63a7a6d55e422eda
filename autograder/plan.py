"""What grading a submission will run: one ``PlannedCheck`` per configured check, made before any child starts.

A planned check carries everything the stages after it read: its project and check, the student's folder, the seeds
it is graded on and its ``Context`` (the bar as the loader validated it, ``CheckConfig.typed_bar``). The
sandbox, ``prepare``, ``on_shard`` and ``judge`` are handed that context (a per-seed child's with just its seeds);
the child gets it as plain data (``Context.plain``) and rebuilds it with the same validation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from autograder.checks import Check, Context, validated_bar
from autograder.config import Course, SeedSet
from autograder.projects import PROJECTS


@dataclass(frozen=True)
class PlannedCheck:
    """One check of one project, ready to run: ``folder`` is None when the submission has no folder for the project
    (or, after the import probe, when its modules failed to import), so the check is reported without a child."""

    project: str
    check_id: str
    folder: Path | None
    context: Context  # the full seed set; ``student`` and ``secret`` for ``judge``
    points: float
    credit: str  # course.yml's, else the check's own default

    @property
    def check(self) -> Check:
        return PROJECTS[self.project].checks[self.check_id]

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.context.seeds

    def shards(self) -> list[tuple[int, ...]]:
        """The seeds of each child: one child per seed for a ``per_seed`` check, else one child for all."""
        return [(seed,) for seed in self.seeds] if self.check.per_seed else [self.seeds]

    def context_for(self, seeds: tuple[int, ...], inputs: str | None = None) -> Context:
        """The context of the child that runs ``seeds`` (``prepare``'s file as ``inputs``)."""
        return replace(self.context, seeds=tuple(seeds), inputs=inputs)

    def request(self, ctx: Context) -> dict:
        """The child's request file: plain data only, the context without ``student`` and ``secret``."""
        return {"project": self.project, "check": self.check_id, "folder": str(self.folder.resolve()), **ctx.plain()}

    def without_folder(self) -> PlannedCheck:
        return replace(self, folder=None)


def planned(course: Course, pid: str, cid: str, seed_set: SeedSet, folder: Path | None = None,
            student: str | None = None) -> PlannedCheck:
    """Check ``cid`` of project ``pid`` as ``course`` configures it. A check with ``fixed_seeds`` keeps its own set
    whichever set is graded; its seeds are ``Course.seeds_for``'s, in the order ``judge`` pairs results with."""
    check, ccfg = PROJECTS[pid].checks[cid], course.projects[pid].checks[cid]
    used = check.fixed_seeds or seed_set
    bar = ccfg.typed_bar(partial(validated_bar, check, where=f"projects.{pid}.checks.{cid}"))  # the loader's model
    knows = PROJECTS[pid].knows_student  # only a project that judges by who the student is hears who, and the secret
    # planned ahead of any submission too (prepare_course): a prepare step that reads the key gets grading's key
    key = check.key_for(folder, course.secret) if hasattr(check, "key_for") else None
    ctx = Context(tuple(course.seeds_for(used)), used, bar, student=student if knows else None,
                  secret=course.secret if knows else None, key=key)
    return PlannedCheck(pid, cid, folder, ctx, float(ccfg.points), ccfg.credit or check.credit)


def project_folder(path: Path, project_id: str) -> Path | None:
    """PATH/<folder> for a folder of projects, or PATH itself when it is the project's folder. A project folder that
    is a link is none: a submission is graded from its own files, never from where a link of its leads (another
    student's folder, or one the student may not read)."""
    folder = PROJECTS[project_id].folder
    if path.name == folder and path.is_dir():
        return path
    return path / folder if real_folder(path / folder) else None


def real_folder(path: Path) -> bool:
    """A folder, and not a link to one."""
    return path.is_dir() and not path.is_symlink()


def missing_folder(path: Path, project_id: str) -> str:
    """Why ``path`` has no folder for project ``project_id``, in a sentence for the report."""
    folder = PROJECTS[project_id].folder
    if (path / folder).is_symlink():
        return (f"{path / folder} is a link, not a folder: a submission is graded from its own files only and a link "
                "is never followed, so nothing was graded (submit the folder itself)")
    return f"no {folder} folder found in {path} (expected {path / folder}/)"


def projects_in(path: Path, course: Course, wanted: list[str] | None) -> list[str]:
    """The projects to grade: those asked for, else those whose folder PATH holds, else all of the course."""
    if wanted:
        return wanted
    present = [pid for pid in course.projects if project_folder(path, pid)]
    return present or list(course.projects)


def plan(path: Path, course: Course, seed_set: SeedSet, projects: list[str] | None = None,
         checks: list[str] | None = None, public_only: bool = False, student: str | None = None) -> list[PlannedCheck]:
    """Every check to grade in ``path``, in the course's order of projects and course.yml's order of checks."""
    out = []
    for pid in projects_in(path, course, projects):
        folder = project_folder(path, pid)
        for cid, ccfg in course.projects[pid].checks.items():
            if (checks and cid not in checks) or (public_only and not ccfg.public):
                continue
            out.append(planned(course, pid, cid, seed_set, folder, student))
    return out


def secret_wanted(course: Course, projects: list[str] | None = None) -> list[str]:
    """Why grading ``projects`` (default: all of the course's) cannot do without the course secret, when the course
    has none: a sentence per project that needs it (C with per-student logs), empty when nothing is missing."""
    if course.secret:
        return []
    needs = [(pid, PROJECTS[pid].needs_secret) for pid in projects or course.projects if PROJECTS[pid].needs_secret]
    return [why for pid, needs_secret in needs if (why := needs_secret(course.projects[pid]))]


def prepare_course(course: Course, seed_set: SeedSet = "grading", projects: list[str] | None = None) -> int:
    """Make, before any submission comes, every input the course's checks make in the grader (each ``prepare``, for
    each child's seeds): C's fresh runs, kept in the run cache, so that no grading trains them again. What a
    Gradescope image does once when it is built. Returns how many inputs were made or found ready."""
    made = 0
    for pid in projects or list(course.projects):
        for cid in course.projects[pid].checks:
            item = planned(course, pid, cid, seed_set)
            if hasattr(item.check, "prepare"):
                for shard in item.shards():
                    item.check.prepare(item.context_for(shard))
                    made += 1
    return made
