"""Submissions as they come: fifos, sockets, devices, links that loop or lead out, huge files and deep trees are
left out with a sentence, and the rest is graded."""

from __future__ import annotations

import os
import socket
import stat

import pytest

from autograder import paths
from autograder.classroom.local import grade_all
from autograder.grading import grade
from autograder.sandbox import staging
from tests.support.grading import checks_by_id, write_submission

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
CHEAP = ["D.weights", "D.kl_penalty"]


def hostile(root):
    """A D submission whose grpo.py is right, beside everything a grader may trip over."""
    folder = write_submission(root, REFERENCE_D) / "D_grpo"
    os.mkfifo(folder / "pipe")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "socket"))
    (folder / "loop_a").symlink_to("loop_b")
    (folder / "loop_b").symlink_to("loop_a")
    (folder / "out").symlink_to("/etc/hostname")
    (folder / "up").symlink_to(root)
    with open(folder / "huge.npz", "wb") as handle:
        handle.truncate((staging.MAX_FILE_MB + 1) * 2**20)  # sparse: costs no disk
    deep = folder.joinpath(*["d"] * (staging.MAX_DEPTH + 3))
    deep.mkdir(parents=True)
    (deep / "bottom.txt").write_text("x")
    try:
        os.mknod(folder / "device", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except OSError:
        pass  # not root: the other entries still count
    return root


WHY = {"pipe": "not a regular file", "socket": "not a regular file", "loop_a": "leads nowhere or in a loop",
       "out": "leads out of the submission", "up": "a link to a folder", "huge.npz": "larger than 64 MB",
       "d/d/d/d/d/d/d/d/d/d/d/d/d": "deeper than 12 levels"}


def test_everything_that_is_not_a_regular_file_is_left_out_with_a_sentence_and_the_rest_graded(tmp_path, course):
    graded = grade(hostile(tmp_path), course, seed_set="public", checks=CHEAP)
    assert all(c["passed"] for c in checks_by_id(graded.report.to_json()).values())
    notes = "\n".join(graded.report.to_json()["projects"]["D"]["notes"])
    for name, why in WHY.items():
        assert any(name + ":" in line and why in line for line in notes.splitlines()), (name, notes)
    if (tmp_path / "D_grpo" / "device").exists():
        assert "device: left out" in notes


def test_a_link_to_a_file_of_the_same_submission_is_graded_as_that_file(tmp_path, course):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "grpo.py").write_text(REFERENCE_D)
    (tmp_path / "D_grpo").mkdir()
    (tmp_path / "D_grpo" / "grpo.py").symlink_to("../shared/grpo.py")
    graded = grade(tmp_path, course, seed_set="public", checks=CHEAP)
    assert all(c["passed"] for c in checks_by_id(graded.report.to_json()).values())
    assert "notes" not in graded.report.to_json()["projects"]["D"]


def test_a_class_run_grades_a_student_whose_folder_holds_a_fifo(tmp_path, course):
    quick = course.model_copy(update={"projects": {"D": course.projects["D"].model_copy(
        update={"checks": {k: v for k, v in course.projects["D"].checks.items() if k in CHEAP}})}})
    hostile(tmp_path / "class" / "mallory")
    rows = grade_all(tmp_path / "class", tmp_path / "out", quick, seed_set="public")
    assert rows[0].status == "graded" and rows[0].report.score == 3.0


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_file_is_left_out(tmp_path):
    (tmp_path / "D_grpo").mkdir()
    (tmp_path / "D_grpo" / "secret.txt").write_text("x")
    (tmp_path / "D_grpo" / "secret.txt").chmod(0)
    assert "could not be read" in staging.stage(tmp_path / "D_grpo", None)[0]


def _closed_reference(tmp_path):
    """The reference D in a folder only its owner may enter: another student's work, or the solutions."""
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    write_submission(closed, REFERENCE_D)
    return closed / "D_grpo"


def test_a_project_folder_that_is_a_link_is_refused_not_followed(tmp_path, course):
    """The attack: a submission whose D_grpo is a link to a folder the student may not read was graded from that
    folder (3/3). A project folder is the submission's own folder or nothing."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "D_grpo").symlink_to(_closed_reference(tmp_path), target_is_directory=True)
    report = grade(tmp_path / "sub", course, seed_set="public", checks=CHEAP).report.to_json()
    assert report["score"] == 0
    assert all("is a link" in c["message"] for c in checks_by_id(report).values())


def test_a_link_as_a_students_folder_or_project_folder_in_a_class_run_is_refused(tmp_path, course):
    """grade-all on a shared disk: mallory's folder is a link to alice's, and trudy's D_grpo one to alice's D_grpo.
    Neither is graded from alice's files."""
    quick = course.model_copy(update={"projects": {"D": course.projects["D"].model_copy(
        update={"checks": {k: v for k, v in course.projects["D"].checks.items() if k in CHEAP}})}})
    alice = write_submission(tmp_path / "class" / "alice", REFERENCE_D)
    (tmp_path / "class" / "mallory").symlink_to(alice, target_is_directory=True)
    (tmp_path / "class" / "trudy").mkdir()
    (tmp_path / "class" / "trudy" / "D_grpo").symlink_to(alice / "D_grpo", target_is_directory=True)
    rows = {row.student: row for row in grade_all(tmp_path / "class", tmp_path / "out", quick, seed_set="public")}
    assert rows["alice"].report.score == 3.0
    assert rows["mallory"].report is None and "link" in rows["mallory"].status
    assert rows["trudy"].report is None or rows["trudy"].report.score == 0


def test_a_gradescope_upload_whose_project_folder_is_a_link_copies_nothing_from_its_target(tmp_path):
    from autograder.gradescope import arrange

    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "D_grpo").symlink_to(_closed_reference(tmp_path), target_is_directory=True)
    layout = arrange(upload, tmp_path / "work")
    assert not (layout / "D_grpo" / "grpo.py").exists()
    assert "a link" in " ".join(staging.stage(upload / "D_grpo", None))
