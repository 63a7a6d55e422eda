"""Shared fixtures: the kit's course, the reference graded once, the students' bundle; and how the suite spreads over
two workers. What the tests share beyond fixtures lives in tests/support/."""

from __future__ import annotations

import copy
import json
from functools import partial
from pathlib import Path

import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade
from tests.support.student_bundle import bundle  # noqa: F401 - a fixture: one students' bundle per session
from tests.support.student_bundle import public_halves_as_bundled  # noqa: F401 - a fixture: the bundle's names
from tests.support.shared import made_once


# On both cores (make test runs pytest -n 2): each module's tests run on one worker, so its fixtures (a reference
# graded, an environment installed, a course built) are made once, as each worker holds fixtures of its own. The
# modules of planted bugs, whose tests each grade a submission of their own, are spread test by test.
SPREAD = {"tests/test_mutants.py", "tests/test_precision.py", "tests/test_student_kit.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return nodeid if module in SPREAD else module

    return ModulesTogether(config, log)


@pytest.fixture(scope="session")
def course():
    """The kit's own course.yml with its bundled seeds, whatever overlay this machine may hold."""
    return load_course(paths.COURSE_FILE, private=False)


@pytest.fixture(scope="session")
def graded_reference(course, tmp_path_factory):
    """The reference's report for one project and seed set, graded once per run whichever worker's tests read it."""
    reports = {}

    def graded(folder: Path, project: str, seed_set: str) -> dict:
        report = grade(paths.SOLUTIONS, course, seed_set=seed_set, projects=[project]).report.to_json()
        (folder / "report.json").write_text(json.dumps(report))
        return json.loads((folder / "report.json").read_text())  # as the other worker reads it

    def report(project: str, seed_set: str = "grading") -> dict:
        if (project, seed_set) not in reports:
            reports[project, seed_set] = made_once(
                tmp_path_factory, f"reference-{project}-{seed_set}", partial(graded, project=project,
                                                                            seed_set=seed_set),
                lambda folder: json.loads((folder / "report.json").read_text()))
        return copy.deepcopy(reports[project, seed_set])

    return report
