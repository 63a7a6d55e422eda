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

from autograder import paths
from autograder.cli import main
from autograder.gradescope import build_zip, run

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
    overlay.write_text("seeds: {grading: [31337]}\n")
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

def test_the_image_prepares_c_fresh_runs_once_and_every_submission_reads_them(tmp_path):
    """setup.sh's prepare step trains Project C's fresh runs for the grading seeds into /autograder/cache; the
    run_autograder of every submission then grades C with them, training nothing again."""
    with zipfile.ZipFile(build_zip(tmp_path / "plain.zip")) as archive:
        script, setup = tmp_path / "run_autograder", archive.read("setup.sh").decode()
        script.write_bytes(archive.read("run_autograder"))
    assert "AUTOGRADER_CACHE=/autograder/cache" in setup and "--prepare /autograder" in setup
    root = gradescope_root(tmp_path, {})
    shutil.copytree(paths.SOLUTIONS / "C_diagnosis", root / "submission" / "C_diagnosis")
    env = {**os.environ, "PYTHONPATH": str(paths.KIT_ROOT), "AUTOGRADER_CACHE": str(root / "cache")}
    subprocess.run([sys.executable, "-m", "autograder.gradescope", "--prepare", str(root)], env=env, check=True,
                   capture_output=True, timeout=300)
    made = {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")}
    assert len([p for p in made if p.name.startswith("runs_")]) == 3  # one bundle per grading seed
    assert len([p for p in made if p.name.startswith("boundary_")]) == 1  # C.diagnose_rules': the smallest seed's
    env = {**os.environ, "AUTOGRADER_PYTHON": sys.executable, "AUTOGRADER_ROOT": str(root)}
    env.pop("AUTOGRADER_CACHE", None)  # run_autograder points at root/cache itself
    done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    fresh_runs = next(t for t in results_of(root)["tests"] if t["name"].startswith("C.fresh_runs"))
    assert fresh_runs["status"] == "passed", fresh_runs["output"]
    assert {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")} == made


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
    overlay.write_text("seeds: {grading: [27182818]}\n")
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
    (course / "course.private.yml").write_text("seeds: {grading: [1618033]}\n")
    monkeypatch.chdir(course)
    assert main(["gradescope", "--out", str(tmp_path / "ag.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "ag.zip") as archive:
        assert "jobs: 1" in archive.read("course.yml").decode()
        assert b"1618033" in archive.read("course.private.yml")
