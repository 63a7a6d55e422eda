"""``autograder grade-all ROOT --out DIR --scheduler ADDRESS``: a class graded on a Dask cluster, a task per student.

Each task grades one student on a worker exactly as ``grade-all --jobs N`` does in one of its threads
(``one_student.grade_one``: the same sandbox, the same limits, the worker's own bubblewrap) and hands back the report
and its figures. Everything else stays in the submitting process: the fingerprints that let a rerun skip unchanged
students, and, as results arrive, each report, ``grades.csv`` and the summary. So an interrupted run resumes as a
local one does. Workers read the class's submissions at the path this process names them by (a shared file system);
the course travels with each task.

Faults: a worker that dies mid-student (killed, out of memory, its machine gone) costs nothing but time: the
scheduler gives its students to another worker. A student whose grading took down a worker more often than the
scheduler's ``distributed.scheduler.allowed-failures`` (3 by default) gets the row ``crashed: ...`` and no report,
so a rerun tries them again. A scheduler that goes away stops the run with every finished row kept.

Dask is an optional extra (``pip install 'rl-capstone-kit[dask]'``): it is imported here only, and only when a
scheduler is named.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import socket
import uuid
from pathlib import Path

import autograder
import rlkit

from autograder.class_folder import assigned_projects, students_in
from autograder.classroom.local import Interrupted
from autograder.classroom.one_student import before_grading, grade_one, keep
from autograder.classroom.rows import Row, write_grades
from autograder.config import Course

CONNECT_SECONDS = 30  # to reach the scheduler, and to reach it again when it drops out mid-run


class ClusterError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable) or went away mid-run."""


class SchedulerLost(ClusterError):
    """The scheduler went away mid-run: ``graded`` students have their rows, ``left`` are for a rerun."""

    def __init__(self, address: str, graded: int, left: int, why: str):
        super().__init__(f"lost the scheduler at {address} ({why}): {graded} graded, {left} left; "
                         "rerun to resume once it is back")
        self.graded, self.left = graded, left


def dask_distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("--scheduler needs Dask's distributed, which is not installed here: "
                           "pip install 'rl-capstone-kit[dask]' (or pip install distributed)") from None
    return distributed


@functools.cache
def kit_digest() -> str:
    """A digest of the kit's code (``autograder`` and ``rlkit``): a worker with other code would grade otherwise."""
    digest = hashlib.sha256()
    for package in (Path(autograder.__file__).parent, Path(rlkit.__file__).parent):
        for path in sorted(package.rglob("*.py")):
            digest.update(f"{path.relative_to(package.parent)}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def grade_on_worker(student: str, folder: str, course: Course, seed_set: str, projects: list[str], kit: str):
    """The task: one student graded on the worker it runs on (``one_student.grade_one``), with the kit's code the
    submitting process has (``kit``, its ``kit_digest``), on the folder at the path it named."""
    if kit != kit_digest():
        return Row(student, "error", reason=f"the worker on {socket.gethostname()} runs another version of the kit "
                   f"(its code {kit_digest()}, here {kit}): install the same one on every worker")
    if not Path(folder).is_dir():
        return Row(student, "error", reason=f"the worker on {socket.gethostname()} cannot see {folder}: every worker "
                   "needs the class folder at the path grade-all was given (a shared file system)")
    return grade_one(student, Path(folder), course, seed_set, projects)


def crashed(student: str, exc: BaseException) -> Row:
    """The row of a student whose task failed on the cluster: their grading took down a worker too often, or the
    task raised (which ``grade_one`` never does of its own)."""
    tries = getattr(exc, "allowed_failures", None)
    if type(exc).__name__ == "KilledWorker":
        said = (f"its grading took down a worker {tries + 1} times" if tries is not None else
                "its grading took down a worker too often")
        return Row(student, "crashed", reason=f"{said} (the scheduler's allowed-failures); rerun to try again")
    return Row(student, "crashed", reason=f"its task failed on the cluster: {type(exc).__name__}: {exc}")


def grade_all_on(address: str, root: Path, out: Path, course: Course, seed_set: str = "grading",
                 progress=None, projects: list[str] | None = None) -> list[Row]:
    """``local.grade_all`` on the Dask cluster whose scheduler is at ``address``: one task per student to grade,
    rows and reports written here as tasks finish. Ctrl-C cancels what has not finished (Interrupted); a scheduler
    that goes away raises SchedulerLost. Both keep every finished row."""
    distributed = dask_distributed()
    quiet = logging.getLogger("distributed.client")  # a lost scheduler is said once, by SchedulerLost
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return _grade_all_on(distributed, address, root, out, course, seed_set, progress, projects)
    finally:
        quiet.setLevel(level)


def _grade_all_on(distributed, address, root, out, course, seed_set, progress, projects) -> list[Row]:
    out.mkdir(parents=True, exist_ok=True)
    students = students_in(root)
    projects = projects or assigned_projects(root, course)
    try:
        client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"could not reach the Dask scheduler at {address}: {exc}") from None
    rows: list[Row] = []
    pending: dict = {}  # future -> (student, fingerprint, state)
    run = f"run{uuid.uuid4().int % 10**8:08d}"  # task keys of this run, so a rerun never meets the last run's; digits,
    # so Dask puts every student's task in one group ("grade"), which its scheduler queues as a whole

    def done(row: Row) -> None:
        rows.append(row)
        write_grades(rows, course, out / "grades.csv", projects)  # after every student: a kill loses no row
        if progress:
            progress(row.student, len(rows), len(students))

    try:
        todo = []  # (student, folder, fingerprint, state)
        for student, folder in students:
            row, stamp, state = before_grading(student, folder, out, course, seed_set, projects)
            if row is None:
                todo.append((student, str(folder.resolve()), stamp, state))
            else:
                done(row)
        if todo:  # one graph: the scheduler sees the whole class at once and queues it, rather than handing every
            # student out at once to a worker's own queue, where that worker's death would count against them all
            futures = client.map(grade_on_worker, [t[0] for t in todo], [t[1] for t in todo], course=course,
                                 seed_set=seed_set, projects=projects, kit=kit_digest(),
                                 key=[f"grade-{run}-{t[0]}" for t in todo], pure=False)
            pending.update((future, (t[0], t[2], t[3])) for future, t in zip(futures, todo))
        for future in distributed.as_completed(list(pending), loop=client.loop):
            student, stamp, state = pending.pop(future)
            if future.status == "cancelled" or client.status not in ("running", "connecting"):
                raise SchedulerLost(address, len(rows), len(students) - len(rows), "the connection to it was lost")
            if future.status == "error":
                done(crashed(student, future.exception()))
            else:
                done(keep(student, out, future.result(), stamp, state))
            future.release()  # the worker may drop the report now
    except KeyboardInterrupt:
        raise Interrupted(len(rows), len(students) - len(rows)) from None
    except (OSError, TimeoutError, distributed.CancelledError) as exc:
        raise SchedulerLost(address, len(rows), len(students) - len(rows), str(exc) or type(exc).__name__) from None
    finally:
        if pending:
            try:
                client.cancel(list(pending), force=True)
            except Exception:  # noqa: BLE001 - a scheduler that is gone has nothing left to cancel
                pass
        client.close(timeout=5)
    return sorted(rows, key=lambda r: r.student)
