"""The students' bundle as the tests build and run it: built from a copy of the kit's course folder whose private
overlay holds distinctive grading seeds and a secret (tests/test_student_kit.py searches the bundle for them), and
its checker's message on one check of a submission."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from autograder import paths
from conftest import copy_reference, mutate, write_submission

OVERLAY_SEEDS = [4_711_001, 81_500_213, 20_260_117]
OVERLAY_SECRET = "overlay-secret-5b1f0c9e-not-for-students"
PROJECT_OF = {"A_ppo": "A", "B_ablations": "B", "C_diagnosis": "C", "D_grpo": "D"}
PROJECT_OF_FOLDER = {pid: folder for folder, pid in PROJECT_OF.items()}


def built_bundle(tmp_path_factory) -> Path:
    """The bundle of the kit's course, its overlay holding ``OVERLAY_SEEDS`` and ``OVERLAY_SECRET``."""
    from autograder.student_kit import build

    course = tmp_path_factory.mktemp("course")
    shutil.copy(paths.COURSE_FILE, course / "course.yml")
    shutil.copytree(paths.ASSIGNMENTS, course / "assignments")
    (course / "course.private.yml").write_text(json.dumps({"seeds": {"grading": OVERLAY_SEEDS},
                                                           "secret": OVERLAY_SECRET}))
    return build(course, tmp_path_factory.mktemp("student") / "kit")


def kit_result(bundle, root: Path, pid: str, cid: str) -> tuple[dict, dict]:
    """What the bundle's checker hands back on check ``cid`` of the submission in ``root`` (its fraction and
    message), and the check's recorded spec."""
    from capstone_check.child import run

    expected = bundle / "capstone_check" / "expected" / f"{pid}.json"
    data = json.loads(expected.read_text())
    result = run({"expected": str(expected), "check": cid, "folder": str(root / data["folder"]),
                  "modules": data["modules"]})
    return result, data["checks"][cid]


def kit_message(bundle, root: Path, pid: str, cid: str) -> tuple[str, dict]:
    """The bundle's message on check ``cid`` of the submission in ``root``, and the check's recorded spec."""
    result, spec = kit_result(bundle, root, pid, cid)
    return result["message"], spec


def planted(root: Path, mutant) -> Path:
    """A submission in ``root``: the reference's project folder with ``mutant``'s bug planted."""
    copy_reference(root, mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    return write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
