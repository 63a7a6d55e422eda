"""grade-all over a class: every student gets a row and a report whatever their submission does, and an interrupted
run resumes without grading anyone twice."""

import csv
import json
import shutil

import pytest
import yaml

from autograder import paths
from autograder.classroom.local import grade_all
from autograder.classroom.resume import forget
from autograder.cli import main
from autograder.loader import load_course
from tests.support.grading import mutate, quick_course_data

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
STUB = (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()
PRICE_BODY = "    logits_ref, rewards = np.asarray(logits_ref, dtype=float), np.asarray(rewards, dtype=float)\n"
CLASS = {
    "ada": REFERENCE,
    "ben": STUB,
    "cy": mutate(REFERENCE, PRICE_BODY, "    raise NotImplementedError()\n"),  # partial
    "dee": REFERENCE.replace("def price_exploit(logits_ref, rewards, exploit):", "def price_exploit("),  # broken
    "eve": mutate(REFERENCE, PRICE_BODY, "    while True:\n        pass\n"),  # hangs
    "gus": mutate(REFERENCE, PRICE_BODY, "    import os\n    os._exit(0)\n"),  # kills its process
    "hal": mutate(REFERENCE, PRICE_BODY, "    hoard = np.ones(10**11)\n"),  # memory bomb
    "ivy": mutate(REFERENCE, "return r - beta * np.log(p / p_ref)", "return r * np.nan"),  # NaN
    "jon": REFERENCE.replace("def kl_penalized_reward(", "def kl_penalised_reward("),  # misnamed function
    "kim": "import sys\nsys.exit(1)\n",  # exits on import
    "lee": REFERENCE,  # a second correct submission
}


@pytest.fixture()
def quick_course(tmp_path):
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty", "D.price_exploit")})
    data["limits"]["wall_seconds"] = 5
    path = tmp_path / "course.yml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture()
def classroom(tmp_path):
    root = tmp_path / "course" / "submitted"
    for student, source in CLASS.items():
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(source)
    (root / "fay").mkdir()  # submitted nothing
    (root / "fay" / "notes.txt").write_text("sorry")
    return tmp_path / "course"


def rows_of(out):
    return {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}


def test_every_student_gets_a_row_and_a_reason(classroom, quick_course, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["grade-all", str(classroom), "--out", str(out), "--course", str(quick_course), "--jobs", "2",
                 "--seeds", "public"]) == 0
    rows = rows_of(out)
    assert set(rows) == set(CLASS) | {"fay"}
    assert rows["ada"]["total"] == rows["ada"]["max"] == "5" and rows["ada"]["status"] == "graded"
    assert list(rows["ada"]) == ["student", "D", "total", "max", "status"]
    statuses = {student: row["status"] for student, row in rows.items()}
    assert statuses["dee"] == "does not compile: D"
    assert statuses["eve"] == "timed out: D.price_exploit"
    assert statuses["gus"] == statuses["hal"] == "crashed: D.price_exploit"  # killed itself; out of memory
    assert statuses["kim"] == "crashed: D"  # exits on import: no check of D ran
    assert {statuses[s] for s in ("ada", "ben", "cy", "ivy", "jon", "lee")} == {"graded"}  # wrong, but graded
    assert rows["ben"]["total"] == "0"
    assert rows["cy"]["total"] == "3" and rows["eve"]["total"] == "3"  # everything but price_exploit
    assert rows["dee"]["total"] == "0" and rows["kim"]["total"] == "0" and rows["lee"]["total"] == "5"
    assert rows["gus"]["total"] == rows["hal"]["total"] == "3" and rows["ivy"]["total"] == rows["jon"]["total"] == "4"
    assert rows["fay"]["status"].startswith("no submission") and "notes.txt" in rows["fay"]["status"]
    eve = json.loads((out / "eve" / "report.json").read_text())
    price = next(c for c in eve["projects"]["D"]["checks"] if c["id"] == "D.price_exploit")
    assert "did not finish within 5 s" in price["message"]
    assert (out / "ada" / "report.html").exists() and (out / "summary.html").exists()
    assert "fay" in (out / "summary.html").read_text()
    assert len(rows) == 12


def test_an_interrupted_run_resumes_without_grading_anyone_twice(classroom, quick_course, tmp_path):
    out, course = tmp_path / "out", load_course(quick_course, private=False)
    finished = []

    def stop_after_two(student, done, total):
        finished.append(student)
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        grade_all(classroom, out, course, seed_set="public", jobs=1, progress=stop_after_two)
    assert set(rows_of(out)) == set(finished)
    reported = {p.parent.name for p in out.glob("*/report.json")}  # the finished two, and one still running, if any
    assert set(finished) - {"fay"} <= reported and len(reported) < len(CLASS)
    rows = {r.student: r.status for r in grade_all(classroom, out, course, seed_set="public")}
    assert {s for s, status in rows.items() if status == "unchanged"} == reported
    assert len(rows_of(out)) == len(CLASS) + 1

    (classroom / "submitted" / "ben" / "D_grpo" / "grpo.py").write_text(REFERENCE)  # a late fix
    rows = {r.student: r.status for r in grade_all(classroom, out, course, seed_set="public")}
    assert rows["ben"] == "regraded" and rows_of(out)["ben"]["total"] == "5"
    assert rows["eve"] == "unchanged (timed out: D.price_exploit)"  # what happened when it was graded, kept
    assert rows["ada"] == "unchanged" and rows["dee"] == "unchanged (does not compile: D)"
    assert all(status.startswith(("unchanged", "regraded", "no submission")) for status in rows.values())

    assert forget(out, "timed-out") == ["eve"]  # grade-all --regrade timed-out: a slow machine's verdict is not kept
    rows = {r.student: r.status for r in grade_all(classroom, out, course, seed_set="public")}
    assert rows["eve"] == "timed out: D.price_exploit" and rows["ada"] == "unchanged"


def test_a_plain_folder_of_downloads_works_too(classroom, quick_course, tmp_path):
    """A folder of student folders, with no ``submitted/`` above it: three of the class (one graded, one that does
    not compile, one that handed in nothing), to keep the suite lean."""
    plain, out = tmp_path / "downloads", tmp_path / "out"
    for student in ("ada", "dee", "fay"):
        shutil.copytree(classroom / "submitted" / student, plain / student)
    rows = {r.student: r.status for r in grade_all(plain, out, load_course(quick_course, private=False),
                                                   seed_set="public")}
    assert rows["ada"] == "graded" and rows["dee"] == "does not compile: D"
    assert rows["fay"].startswith("no submission") and set(rows_of(out)) == {"ada", "dee", "fay"}


def test_reports_never_show_the_grading_seeds(classroom, quick_course, tmp_path):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [918273]}\n")
    out = tmp_path / "out"
    grade_all(classroom, out, load_course(quick_course, private=overlay), seed_set="grading")
    for page in list(out.rglob("report.*")) + [out / "grades.csv"]:
        assert "918273" not in page.read_text(), page


@pytest.fixture()
def two_project_course(tmp_path):
    """A course of A and D with a few quick checks each."""
    data = quick_course_data({"A": ("A.gae",), "D": ("D.weights", "D.kl_penalty")})
    path = tmp_path / "two.yml"
    path.write_text(yaml.safe_dump(data))
    return path


def small_class(tmp_path):
    root = tmp_path / "class"
    for student, source in [("ada", REFERENCE), ("ben", STUB)]:
        (root / student / "D_grpo").mkdir(parents=True)
        (root / student / "D_grpo" / "grpo.py").write_text(source)
    return root


def test_a_class_that_did_only_d_is_shown_only_d(two_project_course, tmp_path, capsys):
    root, out = small_class(tmp_path), tmp_path / "out"
    assert main(["grade-all", str(root), "--out", str(out), "--course", str(two_project_course),
                 "--seeds", "public"]) == 0
    rows = rows_of(out)
    assert list(rows["ada"]) == ["student", "D", "total", "max", "status"]
    assert rows["ada"]["max"] == rows["ada"]["total"] == "3" and rows["ben"]["total"] == "0"
    report = json.loads((out / "ada" / "report.json").read_text())
    assert list(report["projects"]) == ["D"] and report["max_score"] == 3
    summary = (out / "summary.html").read_text()
    assert "on project D (out of 3 points)" in summary
    assert "A.gae" not in summary and summary.count("<img") == 2  # D's histogram alone, and D's pass rates
    assert "grading project D (those found in the class" in capsys.readouterr().err


def test_projects_names_the_assignment_and_a_missing_project_scores_zero(two_project_course, tmp_path):
    root, out = small_class(tmp_path), tmp_path / "out"
    assert main(["grade-all", str(root), "--out", str(out), "--course", str(two_project_course),
                 "--seeds", "public", "--projects", "A,D"]) == 0
    rows = rows_of(out)
    assert list(rows["ada"]) == ["student", "A", "D", "total", "max", "status"]
    assert (rows["ada"]["A"], rows["ada"]["D"], rows["ada"]["max"]) == ("0", "3", "6")
    assert "A.gae" in (out / "summary.html").read_text()
    assert main(["grade-all", str(root), "--out", str(out), "--course", str(two_project_course),
                 "--projects", "Z"]) == 2


def test_scores_are_rounded_to_two_decimals_in_every_view():
    from autograder.report import score_text

    assert [score_text(v) for v in (5.0, 2.5, 1 / 3, 2 / 3 + 1 / 3, 0.1 + 0.2, 12.005)] == \
        ["5", "2.5", "0.33", "1", "0.3", "12.01"]
