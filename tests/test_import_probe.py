"""Import once, fail fast: a module that hangs, crashes or exits at import costs its project one short run."""

from __future__ import annotations

import time

import pytest

from autograder import paths
from autograder.grading import grade
from tests.support.grading import checks_by_id, write_submission

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
AT_IMPORT = {
    "hangs": ("while True:\n    pass\n", "did not finish within 3 s (course.yml's limits.import_seconds)"),
    "sleeps": ("import time\ntime.sleep(1000)\n", "did not finish within 3 s"),
    "exits": ("import os\nos._exit(3)\n", "importing grpo.py failed, so no check of project D was run"),
}


@pytest.mark.parametrize("how", AT_IMPORT)
def test_a_module_that_never_imports_fails_every_check_of_its_project_in_one_short_run(tmp_path, course, how):
    code, phrase = AT_IMPORT[how]
    quick = course.model_copy(update={"limits": course.limits.model_copy(update={"import_seconds": 3})})
    started = time.perf_counter()
    checks = checks_by_id(grade(write_submission(tmp_path, code + REFERENCE_D), quick, seed_set="public",
                                projects=["D"]).report.to_json())
    assert time.perf_counter() - started < 12
    assert len(checks) == len(course.projects["D"].checks)
    assert {c["score"] for c in checks.values()} == {0} and len({c["message"] for c in checks.values()}) == 1
    assert phrase in checks["D.weights"]["message"], checks["D.weights"]["message"]
