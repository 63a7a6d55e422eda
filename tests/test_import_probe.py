"""Import once, fail fast: a module that hangs, crashes or exits at import costs its project one short run."""

from __future__ import annotations

import json
import subprocess
import sys
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


PROBE = """
import json, sys
from autograder.sandbox.child import run
result = run({"check": None, "folder": sys.argv[1], "modules": ["grpo"], "package": "autograder.projects.d_grpo"})
print(json.dumps({"result": result, "student": "grpo" in sys.modules,
                  "grader": sorted(m for m in sys.modules if m.startswith(("autograder.checks", "autograder.projects",
                                                                             "pydantic")))}))
"""


@pytest.mark.parametrize("source, status", [(REFERENCE_D, "ok"), ("raise ValueError('at import')\n", "student_error")])
def test_the_probe_imports_the_students_modules_and_none_of_the_checks(tmp_path, source, status):
    """The probe only loads the modules, so its child starts without the checks' models (a third of a check child's
    imports): one short run per project and grading."""
    folder = write_submission(tmp_path, source) / "D_grpo"
    done = subprocess.run([sys.executable, "-c", PROBE, str(folder)], capture_output=True, text=True, check=True,
                          cwd=paths.KIT_ROOT)
    seen = json.loads(done.stdout)
    assert seen["result"]["status"] == status and (seen["student"] or status != "ok")
    assert seen["grader"] == []
