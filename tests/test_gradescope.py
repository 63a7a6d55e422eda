"""The Gradescope autograder: the zip holds what Gradescope runs, and results.json is valid whatever the upload."""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder import paths
from autograder.cli import main
from autograder.loader import load_course
from autograder.gradescope import build_zip, run
from autograder.sandbox import user

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

SCHEMA = json.loads((Path(__file__).parent / "data" / "gradescope_results.schema.json").read_text())
REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()


def gradescope_root(tmp_path, files: dict[str, str]) -> Path:
    """A folder laid out like /autograder, with the upload in submission/."""
    root = tmp_path / "autograder"
    for name, text in files.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    (root / "submission").mkdir(parents=True, exist_ok=True)
    return root


def results_of(root: Path) -> dict:
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, SCHEMA)
    return results


def test_the_zip_holds_setup_run_and_the_kit_but_no_solutions(tmp_path):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [31337]}\nsecret: the-course-secret\n")
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip"), "--private", str(overlay)]) == 0
    with zipfile.ZipFile(tmp_path / "ag.zip") as archive:
        names = set(archive.namelist())
        assert {"setup.sh", "run_autograder", "course.yml", "course.private.yml", "requirements.txt",
                "autograder/gradescope.py", "rlkit/toy.py"} <= names
        assert not any(name.startswith("solutions/") or "/bundled/" in name for name in names)
        assert archive.getinfo("run_autograder").external_attr >> 16 & 0o111
        assert "-m autograder.gradescope" in archive.read("run_autograder").decode()


def test_run_autograder_itself_grades_a_folder_laid_out_like_gradescopes(tmp_path):
    with zipfile.ZipFile(build_zip(tmp_path / "plain.zip")) as archive:
        script = tmp_path / "run_autograder"
        script.write_bytes(archive.read("run_autograder"))
    root = gradescope_root(tmp_path, {"D_grpo/grpo.py": "def nothing(:\n"})
    env = {**os.environ, "AUTOGRADER_PYTHON": sys.executable, "AUTOGRADER_ROOT": str(root)}
    done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = results_of(root)
    assert results["score"] == 0 and "does not compile" in results["tests"][0]["output"]

def unpacked(zip_path: Path, root: Path) -> Path:
    """The zip unpacked as Gradescope does, into root/source; root is laid out like /autograder."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir(parents=True, exist_ok=True)
    return root


def prepared(root: Path) -> subprocess.CompletedProcess:
    """setup.sh's prepare step, run from the unpacked zip."""
    env = {**os.environ, "PYTHONPATH": str(root / "source"), "AUTOGRADER_CACHE": str(root / "cache")}
    env.pop("AUTOGRADER_PRIVATE", None)
    return subprocess.run([sys.executable, "-m", "autograder.gradescope", "--prepare", str(root)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=root)


def run_autograder(root: Path) -> dict:
    env = {**os.environ, "AUTOGRADER_PYTHON": sys.executable, "AUTOGRADER_ROOT": str(root)}
    for name in ("AUTOGRADER_CACHE", "AUTOGRADER_PRIVATE", "PYTHONPATH"):  # run_autograder sets what it needs
        env.pop(name, None)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr
    return results_of(root)


@pytest.mark.skipif(os.geteuid() == 0 and not user.dropping(load_course(private=False).limits.sandbox_uids),
                    reason="run as root from a venv the sandbox uids cannot run, the prepare step refuses by design "
                           "(student code would run as root)")
def test_the_image_prepares_c_fresh_runs_once_and_every_submission_reads_them(tmp_path):
    """setup.sh's prepare step trains Project C's fresh runs for the grading seeds into /autograder/cache; the
    run_autograder of every submission then grades C with them, training nothing again."""
    overlay = tmp_path / "private.yml"
    overlay.write_text(f"seeds: {{grading: {load_course(private=False).seeds.grading}}}\nsecret: s3cret\n")
    root = unpacked(build_zip(tmp_path / "ag.zip", overlay, projects=["C"]), tmp_path / "autograder")
    setup = (root / "source" / "setup.sh").read_text()
    assert "AUTOGRADER_CACHE=/autograder/cache" in setup and "--prepare /autograder" in setup
    shutil.copytree(paths.SOLUTIONS / "C_diagnosis", root / "submission" / "C_diagnosis")
    assert prepared(root).returncode == 0
    made = {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")}
    assert len([p for p in made if p.name.startswith("runs_")]) == 3  # one bundle per grading seed
    assert len([p for p in made if p.name.startswith("boundary_")]) == 1  # C.diagnose_rules': the smallest seed's
    fresh_runs = next(t for t in run_autograder(root)["tests"] if t["name"].startswith("C.fresh_runs"))
    assert fresh_runs["score"] > 0 and "not your fault" not in fresh_runs["output"], fresh_runs["output"]
    assert {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")} == made


def test_a_zip_without_the_secret_that_c_needs_is_refused_at_build(tmp_path, capsys):
    """C's logs are per student: without the course secret Gradescope would score correct labels 1/3."""
    seeds_only = tmp_path / "private.yml"
    seeds_only.write_text("seeds: {grading: [31337]}\n")
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip"), "--private", str(seeds_only)]) == 2
    said = capsys.readouterr().err
    assert "not building the zip" in said and "secret" in said and "--projects A,B,D" in said
    assert not (tmp_path / "ag.zip").exists()
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip"), "--private", str(seeds_only), "--projects",
                 "D"]) == 0


def test_an_image_without_the_secret_that_c_needs_fails_to_build_and_says_why(tmp_path):
    root = unpacked(build_zip(tmp_path / "ag.zip"), tmp_path / "autograder")  # built around the CLI's refusal
    done = prepared(root)
    assert done.returncode == 1 and "ERROR" in done.stderr and "secret" in done.stderr
    assert not list((root / "cache").rglob("runs_*.npz")), "nothing prepared for an image that cannot grade"


def test_an_image_whose_sandbox_uids_cannot_run_its_python_is_refused(monkeypatch):
    """As root, a venv made from a Python under root's home runs student code as root: setup.sh stops there."""
    from autograder import gradescope

    course = load_course(private=False).model_copy(update={"secret": "s3cret"})
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr("autograder.sandbox.user.dropping", lambda uids: False)
    assert "student code would run as root" in gradescope.unfit(course)
    monkeypatch.setattr("autograder.sandbox.user.dropping", lambda uids: True)
    assert gradescope.unfit(course) == ""
    assert "\n/usr/bin/python3 -m venv /autograder/venv" in gradescope.SETUP
    assert "\npython3 -m venv" not in gradescope.SETUP


def test_an_assignment_grades_its_own_projects_and_no_other(tmp_path):
    """Built with --projects D, the autograder grades D alone: a C file in the upload is not graded, and an upload
    without D says what it expected."""
    root = unpacked(build_zip(tmp_path / "ag.zip", projects=["D"]), tmp_path / "autograder")
    (root / "submission" / "diagnostics.py").write_text("def diagnose(log):\n    return 'healthy'\n")
    results = run_autograder(root)
    assert results["score"] == 0 and not results["tests"]
    assert "expected a project folder (D_grpo/) or a project's module (grpo.py)" in results["output"]
    (root / "submission" / "grpo.py").write_text("def nothing(:\n")
    results = run_autograder(root)
    assert results["tests"] and all(t["name"].startswith("D.") for t in results["tests"])
    assert "Graded projects: D." in results["output"]


def test_a_loose_module_upload_is_graded(tmp_path):
    root = gradescope_root(tmp_path, {"grpo.py": REFERENCE, "D_grpo.ipynb": "{}"})
    results = run(root)
    assert results == results_of(root)
    assert results["score"] == 20 and len(results["tests"]) == 9
    assert all(t["status"] == "passed" for t in results["tests"])


def test_a_crashing_submission_still_gets_a_valid_results_file(tmp_path):
    root = gradescope_root(tmp_path, {"D_grpo/grpo.py": "import sys\nsys.exit(3)\n"})
    run(root)
    results = results_of(root)
    assert results["score"] == 0 and all(t["status"] == "failed" for t in results["tests"])
    assert "importing grpo.py called sys.exit(3)" in results["tests"][0]["output"]


def test_an_upload_without_any_project_says_what_it_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # Gradescope starts run_autograder outside the course folder
    root = gradescope_root(tmp_path, {"essay.txt": "hi"})
    results = run(root)
    assert results_of(root)["score"] == 0 and "essay.txt" in results["output"]


def test_a_failure_of_the_grader_itself_is_still_a_valid_results_file(tmp_path, monkeypatch):
    root = gradescope_root(tmp_path, {"D_grpo/grpo.py": REFERENCE})
    monkeypatch.setattr("autograder.gradescope.arrange", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    results = run(root)
    assert results_of(root)["score"] == 0 and "The autograder itself failed (OSError: disk full)" in results["output"]


def test_setup_installs_bubblewrap_and_closes_the_kit_to_student_code():
    from autograder.gradescope import SETUP

    assert "bubblewrap" in SETUP and "chmod -R go-rwx /autograder/source" in SETUP


def test_the_zip_takes_the_overlay_from_autograder_private_like_every_command(tmp_path, monkeypatch):
    overlay = tmp_path / "elsewhere.yml"
    overlay.write_text("seeds: {grading: [27182818]}\nsecret: the-course-secret\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(overlay))
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "ag.zip") as archive:
        assert b"27182818" in archive.read("course.private.yml")


def test_setup_installs_only_what_grading_needs(tmp_path):
    with zipfile.ZipFile(build_zip(tmp_path / "ag.zip")) as archive:
        requirements = archive.read("requirements.txt").decode().split()
        setup = archive.read("setup.sh").decode()
    names = {re.split(r"[<>=!~ ;\[]", line)[0].lower() for line in requirements}
    assert {"numpy", "gymnasium", "pydantic", "matplotlib"} <= names
    assert not names & {"nbgrader", "nbformat", "jupyter", "ipykernel", "notebook", "pytest"}
    assert "-r /autograder/source/requirements.txt" in setup and "-e " not in setup


def test_the_zip_is_built_from_the_course_folder_it_is_run_in(tmp_path, monkeypatch):
    course = tmp_path / "course"
    course.mkdir()
    (course / "course.yml").write_text(paths.COURSE_FILE.read_text().replace("jobs: 2", "jobs: 1"))
    (course / "course.private.yml").write_text("seeds: {grading: [1618033]}\nsecret: the-course-secret\n")
    monkeypatch.chdir(course)
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "ag.zip") as archive:
        assert "jobs: 1" in archive.read("course.yml").decode()
        assert b"1618033" in archive.read("course.private.yml")
