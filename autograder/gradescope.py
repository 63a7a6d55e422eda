"""Gradescope: ``autograder gradescope`` builds the autograder zip; inside Gradescope, ``run`` grades the upload.

Gradescope unpacks the zip into /autograder/source, runs ``setup.sh`` once to build the image, then for every
submission runs ``run_autograder`` with the student's upload in /autograder/submission and reads
/autograder/results/results.json. ``run`` writes a valid results.json first thing and again at the end, so a crash or
a timeout still leaves a result that says what happened.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from autograder import paths
from autograder.kit import KitError
from autograder.kit_packages import DISTRIBUTION, grading_packages
from autograder.report.model import Report
from autograder.report.table import score_text

SETUP = """#!/usr/bin/env bash
# Gradescope builds its image with this once: what grading needs (requirements.txt, the kit's core dependencies: no
# Jupyter, no nbgrader) in a venv; the kit itself runs from this folder (run_autograder puts it on PYTHONPATH).
set -euo pipefail
apt-get update -qq && apt-get install -y -qq python3 python3-pip python3-venv bubblewrap > /dev/null
# The venv is made from the system's Python, never from whichever python3 comes first on PATH: each check's child
# runs as a uid of its own, which must be able to run that Python (one under root's home, such as pyenv's or
# conda's, it cannot, and student code would then run as root). --prepare below refuses an image where it cannot.
/usr/bin/python3 -m venv /autograder/venv
/autograder/venv/bin/python -m pip install --quiet --upgrade pip
/autograder/venv/bin/python -m pip install --quiet -r /autograder/source/requirements.txt
# What grading can make before any submission comes (Project C's fresh runs for the grading seeds) is made once, into
# the image: every submission then reads it instead of training it again. It first checks that the image can grade
# as built: the sandbox's uids can run the venv's Python, and the course secret is there if Project C needs it.
mkdir -p /autograder/cache
AUTOGRADER_CACHE=/autograder/cache PYTHONPATH=/autograder/source /autograder/venv/bin/python -m autograder.gradescope \\
    --prepare /autograder
# The kit, its oracles, the private overlay and the cache are root's alone: student code runs as a uid of its own,
# under bubblewrap, and reads none of them (it imports a copy of the runtime without the oracles, made for each run).
chmod -R go-rwx /autograder/source /autograder/cache
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission; results land in /autograder/results/results.json.
# (The two variables exist so the kit's tests can run this very script against a folder laid out like /autograder.)
root="${AUTOGRADER_ROOT:-/autograder}"
export PYTHONPATH="$root/source${PYTHONPATH:+:$PYTHONPATH}"
export AUTOGRADER_CACHE="${AUTOGRADER_CACHE:-$root/cache}"  # what setup.sh made for every submission
exec "${AUTOGRADER_PYTHON:-/autograder/venv/bin/python}" -m autograder.gradescope "$root"
"""

ASSIGNMENT = "assignment.json"  # in the zip: the projects this Gradescope assignment grades (--projects)


def core_requirements() -> list[str]:
    """The kit's dependencies without any extra (what grading needs), from the installed kit's metadata."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        wanted = requires(DISTRIBUTION) or []
    except PackageNotFoundError:
        raise KitError(f"the zip lists the kit's dependencies from its installed metadata, and {DISTRIBUTION} is not "
                       "installed here: install the kit (pip install, or make grade) and run this again") from None
    return [line for line in wanted if "extra ==" not in line]


def _kit_files() -> list[tuple[Path, str]]:
    """The kit's packages that grading imports (``kit_packages``), as the zip holds them: code only, never the bundled
    course (its solutions)."""
    files = []
    for package in grading_packages():
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package)
            if path.is_file() and "__pycache__" not in relative.parts and relative.parts[0] != "bundled":
                files.append((path, f"{package.name}/{relative.as_posix()}"))
    return files


def build_zip(out: Path, private: Path | None = None, course_file: Path | None = None,
              projects: list[str] | None = None) -> Path:
    """The zip to upload as the assignment's autograder: setup.sh, run_autograder, requirements.txt, the course file
    and the kit's code; with ``projects``, the projects this assignment grades (every other is left ungraded).

    The reference solutions are left out; the instructor's private overlay, if given, goes in as course.private.yml so
    Gradescope grades with the real grading seeds (students never see the autograder zip).
    """
    requirements = "\n".join(core_requirements()) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (("setup.sh", SETUP), ("run_autograder", RUN)):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            archive.writestr(info, text)
        archive.writestr("requirements.txt", requirements)
        archive.write(course_file or paths.COURSE_FILE, paths.COURSE_NAME)
        for path, name in _kit_files():
            archive.write(path, name)
        if private is not None:
            archive.write(private, paths.PRIVATE_NAME)
        if projects:
            archive.writestr(ASSIGNMENT, json.dumps({"projects": list(projects)}))
    return out


def assigned(course) -> list[str] | None:
    """The projects this Gradescope assignment grades, as the zip was built (``--projects``); None when it names
    none, and every project of the course the upload holds is graded."""
    try:
        wanted = json.loads((paths.BUNDLED / ASSIGNMENT).read_text())["projects"]
    except FileNotFoundError:
        return None
    return [pid for pid in course.projects if pid in wanted]


def missing_secret(course, projects: list[str]) -> str:
    """What to say when ``projects`` need the course secret and the course has none ("" when nothing is missing)."""
    from autograder.plan import secret_wanted

    why = secret_wanted(course, projects)
    if not why:
        return ""
    return (f"{why[0]}, but the private overlay ({course.private_overlay or 'none found'}) holds no `secret:`, so "
            "no student's own logs can be graded")


def arrange(submission: Path, workdir: Path) -> Path:
    """A folder of project folders made from the upload: project folders as they are, loose modules into theirs."""
    from autograder.projects import PROJECTS
    from autograder.sandbox.staging import stage

    layout = workdir / "submission"
    layout.mkdir(parents=True)
    for project in PROJECTS.values():  # regular files only; links followed only within the upload (see staging)
        if (submission / project.folder).is_dir():
            stage(submission / project.folder, layout / project.folder, within=submission)
        elif any((submission / f"{m}.py").is_file() for m in project.modules):
            stage(submission, layout / project.folder, within=submission)
    return layout


def results_from(report: Report, seconds: float) -> dict:
    tests = []
    for check in report.checks():
        tests.append({"name": f"{check.id}: {check.name}", "score": check.score, "max_score": check.max_score,
                      "status": "passed" if check.passed else "failed", "output": check.message,
                      "visibility": "visible"})
    found = ", ".join(report.projects) or "none"
    notes = "".join(f"\n{note}" for project in report.projects.values() for note in project.notes)
    return {"score": report.score, "execution_time": round(seconds, 1), "tests": tests,
            "output": f"Graded projects: {found}. Score {score_text(report.score)} / "
                      f"{score_text(report.max_score)}.{notes}",
            "stdout_visibility": "hidden"}


def submitter(root: Path) -> str | None:
    """The submitting student's email from Gradescope's submission_metadata.json (their id for Project C's logs)."""
    try:
        users = json.loads((root / "submission_metadata.json").read_text())["users"]
        return str(users[0]["email"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def _write(results_dir: Path, results: dict) -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    partial = results_dir / "results.json.partial"
    partial.write_text(json.dumps(results, indent=2))
    partial.replace(results_dir / "results.json")


def _close_the_kit(root: Path) -> None:
    """On Gradescope (the kit unpacked in root/source), the kit's folder (oracles, the zip's copy of the grading
    seeds) is closed to every uid but root's, as setup.sh leaves it; done again here, so an image built by an older
    setup.sh is closed too. Elsewhere (a kit the instructor runs this from) folders are left as they are."""
    if os.geteuid() == 0 and (root / "source").resolve() == paths.KIT_ROOT:
        paths.KIT_ROOT.chmod(0o700)
    if paths.PRIVATE_FILE.exists():
        paths.PRIVATE_FILE.chmod(0o600)


def graded_course():
    """The course unpacked beside the kit's code (source/), with the zip's overlay when there is one."""
    from autograder.loader import load_course

    return load_course(paths.COURSE_FILE, private=paths.PRIVATE_FILE if paths.PRIVATE_FILE.exists() else False)


def prepare(root: Path) -> int:
    """At the image's build (setup.sh): refuse an image that could not grade as built (``unfit``), then make the
    inputs every grading would make (``plan.prepare_course``) into the run cache that run_autograder points at."""
    from autograder.plan import prepare_course

    course = graded_course()
    problem = unfit(course)
    if problem:
        print(f"ERROR: this autograder cannot grade as built: {problem}", file=sys.stderr)
        raise SystemExit(1)
    made = prepare_course(course, projects=assigned(course))
    where = os.environ.get("AUTOGRADER_CACHE", "the user cache")
    print(f"prepared {made} input{'s' if made != 1 else ''} for grading in {where}")
    return made


def unfit(course) -> str:
    """Why an image with this course would grade wrongly ("" when it would not): a course secret Project C needs and
    the zip lacks, or a grader running as root whose sandbox uids cannot run its Python (student code would run as
    root)."""
    from autograder.sandbox.user import dropping

    missing = missing_secret(course, assigned(course))
    if missing:
        return (f"{missing}. Rebuild the zip with `autograder gradescope` and an overlay holding the secret that "
                "`autograder c-logs` used")
    if os.geteuid() == 0 and not dropping(course.limits.sandbox_uids):
        return (f"the sandbox's uids cannot run {sys.executable}, so student code would run as root; make the venv "
                "from a Python every user can run (/usr/bin/python3, as setup.sh does)")
    return ""


UNFINISHED = ("Grading did not finish (the autograder was stopped, probably by its time limit). Run `capstone-check` "
              "locally to find the check that takes too long.")


def run(root: Path) -> dict:
    """Grade ``root/submission`` into ``root/results/results.json`` (root is /autograder on Gradescope)."""
    from autograder.grading import grade
    from autograder.projects import PROJECTS

    started, results_dir = time.perf_counter(), root / "results"
    _write(results_dir, {"score": 0.0, "execution_time": 0, "tests": [], "output": UNFINISHED})
    try:
        _close_the_kit(root)
        course = graded_course()  # wherever Gradescope starts this from
        with tempfile.TemporaryDirectory(prefix="gradescope-") as workdir:
            layout = arrange(root / "submission", Path(workdir))
            wanted = assigned(course)  # a project of the assignment missing from the upload scores 0, saying so
            present = [pid for pid in wanted or course.projects if (layout / PROJECTS[pid].folder).is_dir()]
            if not present:
                found = ", ".join(sorted(p.name for p in (root / "submission").iterdir())) or "nothing"
                folders = ", ".join(f"{PROJECTS[pid].folder}/" for pid in wanted or course.projects)
                modules = ", ".join(f"{m}.py" for pid in wanted or course.projects for m in PROJECTS[pid].modules)
                results = {"score": 0.0, "execution_time": round(time.perf_counter() - started, 1), "tests": [],
                           "output": f"No project found in the upload: expected a project folder ({folders}) or a "
                                     f"project's module ({modules}); found {found}."}
            else:
                report = grade(layout, course, seed_set="grading", projects=wanted or present,
                               student=submitter(root)).report
                results = results_from(report, time.perf_counter() - started)
                missing = missing_secret(course, present)
                if missing:  # an image built without setup.sh's check: say it where the student and instructor look
                    results["output"] += (f"\nThis autograder lacks the course secret: {missing}. This is not your "
                                          "fault; please tell the instructor.")
    except Exception as exc:  # noqa: BLE001 - Gradescope must always get a results file
        results = {"score": 0.0, "execution_time": round(time.perf_counter() - started, 1), "tests": [],
                   "output": f"The autograder itself failed ({type(exc).__name__}: {exc}); this is not your fault, "
                             f"please tell the instructor.\n{traceback.format_exc(limit=-3)}"}
    _write(results_dir, results)
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--prepare"]:  # setup.sh; exits 1 with a sentence when the image could not grade
        prepare(Path(sys.argv[2] if len(sys.argv) > 2 else "/autograder"))
    else:
        run(Path(sys.argv[1] if len(sys.argv) > 1 else "/autograder"))
