"""The students' bundle as the tests build it (one per session, from a course folder whose private overlay holds
distinctive grading seeds and a secret), and what its checker says of a submission."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from autograder import paths
from autograder.student_kit import build
from tests.support.grading import copy_reference, mutate, write_submission
from tests.support.shared import made_once

OVERLAY_SEEDS = [4_711_001, 81_500_213, 20_260_117]
OVERLAY_SECRET = "overlay-secret-5b1f0c9e-not-for-students"
PROJECT_OF = {"A_ppo": "A", "B_ablations": "B", "C_diagnosis": "C", "D_grpo": "D"}
PROJECT_OF_FOLDER = {pid: folder for folder, pid in PROJECT_OF.items()}


@pytest.fixture(scope="session")
def bundle(tmp_path_factory) -> Path:
    """One bundle for the whole run, whichever worker asks first (``shared.made_once``): the tests only read it."""
    def make(folder: Path) -> Path:
        course = folder / "course"
        course.mkdir()
        shutil.copy(paths.COURSE_FILE, course / "course.yml")
        shutil.copytree(paths.ASSIGNMENTS, course / "assignments")
        (course / "course.private.yml").write_text(json.dumps({"seeds": {"grading": OVERLAY_SEEDS},
                                                               "secret": OVERLAY_SECRET}))
        return build(course, folder / "student" / "kit")

    return made_once(tmp_path_factory, "students-bundle", make, lambda folder: folder / "student" / "kit")


@pytest.fixture(scope="session", autouse=True)
def public_halves_as_bundled(tmp_path_factory) -> None:
    """Let this session's checker (the source's ``capstone_check``) import what only a bundle holds: the projects'
    public halves as ``capstone_check.project_checks``, copied as a bundle copies them, so a bundle's child run in a
    test's own process finds the function its expected values name."""
    import capstone_check
    from autograder.student_kit import IN_BUNDLE, copy_public_halves

    folder = tmp_path_factory.mktemp("checker")
    copy_public_halves(folder / IN_BUNDLE.rpartition(".")[2])
    capstone_check.__path__.append(str(folder))


def expected_of(bundle: Path, pid: str) -> tuple[Path, dict]:
    """The bundle's expected values of project ``pid``: their file and what it holds."""
    path = bundle / "capstone_check" / "expected" / f"{pid}.json"
    return path, json.loads(path.read_text())


def kit_result(bundle: Path, root: Path, pid: str, cid: str) -> dict:
    """What the bundle's child hands back for check ``cid`` of the submission in ``root`` (for a row left to final
    grading, its probe's result)."""
    from capstone_check.child import run

    expected, data = expected_of(bundle, pid)
    return run({"expected": str(expected), "check": cid, "folder": str(root / data["folder"]),
                "modules": data["modules"], "probe": data["checks"][cid]["kind"] == "final_only"})


def kit_message(bundle: Path, root: Path, pid: str, cid: str) -> tuple[str, dict]:
    """The bundle's message on check ``cid`` of the submission in ``root``, and the check's recorded spec."""
    _, data = expected_of(bundle, pid)
    return kit_result(bundle, root, pid, cid)["message"], data["checks"][cid]


def kit_line(bundle: Path, root: Path, pid: str, cid: str) -> str:
    """The line `capstone-check` prints for row ``cid`` of the submission in ``root``, with the rows it builds on,
    trusts or is led by run too (a row left to final grading is predicted from them)."""
    from capstone_check.cli import row_line
    from capstone_check.runner import _row

    specs = expected_of(bundle, pid)[1]["checks"]
    rows = {c: _row(c, specs[c], kit_result(bundle, root, pid, c), 0.0)
            for c in [*specs[cid].get("builds_on", ()), *specs[cid].get("trusts", ()), *specs[cid].get("led_by", ()),
                      cid]}
    return row_line(rows[cid], specs[cid], rows)


def planted(root: Path, mutant) -> Path:
    """A submission in ``root``: the reference's project folder with ``mutant``'s bug planted."""
    copy_reference(root, mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    return write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
