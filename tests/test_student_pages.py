"""What a student reads of a grading names the students' command, `capstone-check P`, never the staff's
`autograder check` (which a student does not have): report.html, report.json's messages, Gradescope's results.json
and the verdict nbgrader writes below each check cell. Graded on private grading seeds, where every failure points
the student to the public seeds' command."""

from __future__ import annotations

import json
import re

import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.gradescope import UNFINISHED, results_from
from autograder.grading import figures_for, grade
from autograder.notebook import verdict
from autograder.projects import PROJECTS
from autograder.projects.a_ppo.plots import run_label
from autograder.report.html import write_html
from tests.support.grading import copy_reference, mutate, write_submission
from tests.support.mutants import ALL

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

STAFF_COMMAND = re.compile(r"autograder\s+check", re.IGNORECASE)


@pytest.fixture(scope="module")
def private_course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("overlay")
    (folder / "private.yml").write_text("seeds: {grading: [3987654321, 1234567891, 2718281829]}\n"
                                        "secret: pages-secret-3c9d\n")
    return load_course(paths.COURSE_FILE, private=folder / "private.yml")


def student_outputs(report, tmp_path) -> dict[str, str]:
    """Every text of a grading that reaches the student, by where it is read."""
    titles = {pid: PROJECTS[pid].title for pid in report.projects}
    page = write_html(report, figures_for(report), tmp_path / "report.html", titles)
    cells = [verdict(check, check.id, "grading seeds") for check in report.checks()]
    messages = [check["message"] for project in report.to_json()["projects"].values() for check in project["checks"]]
    return {"report.html": page.read_text(), "report.json messages": "\n".join(messages),
            "results.json": json.dumps(results_from(report, 1.0)) + UNFINISHED, "nbgrader feedback": "\n".join(cells)}


def test_every_page_of_a_grading_names_the_students_command(private_course, tmp_path):
    """The stubs of every project (each check fails, "not implemented") and a planted bug that a judged check
    catches: each failure on the grading seeds points to `capstone-check P`, and no page names `autograder check`."""
    # their inputs are trained for the new seeds first (C's logs, B.bar's runs), minutes; B's other rows show B's
    skipped = {"C.fresh_runs", "C.diagnose_rules", "B.bar"}
    checks = [cid for pid in "ABCD" for cid in private_course.projects[pid].checks if cid not in skipped]
    stubs = grade(paths.ASSIGNMENTS, private_course, seed_set="grading", checks=checks, student="pat").report
    bug = next(m for m in ALL if m.name == "leave-one-out divides by K")
    root = copy_reference(tmp_path, bug.folder)
    reference = (paths.SOLUTIONS / bug.folder / bug.module).read_text()
    write_submission(root, mutate(reference, bug.old, bug.new), bug.folder, bug.module)
    judged = grade(root, private_course, seed_set="grading", checks=["D.weights"]).report
    assert not judged.checks()[0].passed and judged.checks()[0].status is None
    for report, name in ((stubs, "stubs"), (judged, "planted bug")):
        for where, text in student_outputs(report, tmp_path).items():
            assert not STAFF_COMMAND.search(text), f"{name}: {where} names the staff's command"
            for pid in report.projects:
                assert f"capstone-check {pid}" in text, f"{name}: {where} does not point to capstone-check {pid}"


def test_a_run_final_grading_does_not_credit_names_the_update_and_the_piece_that_fails(private_course, tmp_path):
    """A GAE that treats truncation as termination trains to the bar, but its updates do not follow from a correct
    GAE: on the grading seeds the row names the update and A.gae, and the figure shows no return for the run."""
    bug = next(m for m in ALL if m.name == "truncation treated as termination")
    root = copy_reference(tmp_path, bug.folder)
    reference = (paths.SOLUTIONS / bug.folder / bug.module).read_text()
    write_submission(root, mutate(reference, bug.old, bug.new), bug.folder, bug.module)
    report = grade(root, private_course, seed_set="grading", checks=["A.gae", "A.bar"]).report
    gae, bar = report.checks()
    assert not gae.passed and bar.score == 0
    assert bar.message.startswith("Not credited: these runs are made by your pieces, and A.gae fails its check. Fix "
                                  "A.gae first."), bar.message
    assert re.search(r"What the grader saw: the first run to leave did so at update \d+\.$", bar.message), bar.message
    departed = bar.details["departed"]
    labels = [run_label(i, 60, bar.details["evaluated"], departed) for i in range(len(departed))]
    assert all("not credited: update" in label and "return" not in label for label in labels), labels
