"""The Gradescope autograder: the zip holds what Gradescope runs, and results.json is valid whatever the upload.

The zip is tried as Gradescope runs it: unpacked into a folder laid out like /autograder, with a venv that holds only
the distributions its requirements.txt names (``image_python``), never the test session's Python, where the whole kit
is installed and would hide a package the zip lacks."""

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
from autograder.projects import PROJECTS
from autograder.sandbox import user
from tests.support.alone import new_venv, reachable_folder, required_distributions

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


def unpacked(zip_path: Path, root: Path) -> Path:
    """The zip unpacked as Gradescope does, into root/source; root is laid out like /autograder."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="module")
def image_python():
    """The Python of a venv made as setup.sh makes /autograder/venv: the zip's requirements.txt and what they need,
    and nothing of the kit (linked from the test environment, so no index is reached)."""
    base = reachable_folder("gradescope-image-")
    with zipfile.ZipFile(build_zip(base / "requirements.zip")) as archive:
        requirements = archive.read("requirements.txt").decode().split("\n")
    python, _ = new_venv(base, required_distributions([line for line in requirements if line.strip()]))
    yield python
    shutil.rmtree(base, ignore_errors=True)


def prepared(root: Path, python: Path) -> subprocess.CompletedProcess:
    """setup.sh's prepare step, run from the unpacked zip with the image's Python."""
    env = {**os.environ, "PYTHONPATH": str(root / "source"), "AUTOGRADER_CACHE": str(root / "cache")}
    env.pop("AUTOGRADER_PRIVATE", None)
    return subprocess.run([str(python), "-m", "autograder.gradescope", "--prepare", str(root)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=root)


def run_autograder(root: Path, python: Path) -> dict:
    env = {**os.environ, "AUTOGRADER_PYTHON": str(python), "AUTOGRADER_ROOT": str(root)}
    for name in ("AUTOGRADER_CACHE", "AUTOGRADER_PRIVATE", "PYTHONPATH"):  # run_autograder sets what it needs
        env.pop(name, None)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=900, cwd=root)
    assert done.returncode == 0, done.stderr
    return results_of(root)


def test_run_autograder_itself_grades_a_folder_laid_out_like_gradescopes(tmp_path, image_python):
    root = unpacked(build_zip(tmp_path / "plain.zip", projects=["D"]), tmp_path / "autograder")
    (root / "submission" / "D_grpo").mkdir()
    (root / "submission" / "D_grpo" / "grpo.py").write_text("def nothing(:\n")
    results = run_autograder(root, image_python)
    assert results["score"] == 0 and "does not compile" in results["tests"][0]["output"]


GRADING_SEEDS = [815, 4711, 2026]  # unsorted, and none of the course's placeholders


@pytest.fixture(scope="module")
def image(tmp_path_factory, image_python):
    """The zip of every project, with an overlay of grading seeds and a secret, unpacked as Gradescope does and
    prepared by setup.sh's step with the image's Python."""
    if os.geteuid() == 0 and not user.dropping(load_course(private=False).limits.sandbox_uids):
        pytest.skip("run as root from a venv the sandbox uids cannot run, the prepare step refuses by design "
                    "(student code would run as root)")
    base = tmp_path_factory.mktemp("image")
    overlay = base / "private.yml"
    overlay.write_text(f"seeds: {{grading: {GRADING_SEEDS}}}\nsecret: s3cret\n")
    root = unpacked(build_zip(base / "ag.zip", overlay), base / "autograder")
    done = prepared(root, image_python)
    made = {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")}
    return {"root": root, "overlay": overlay, "prepared": done, "made": made, "python": image_python}


def uploaded(root: Path, source: Path, folders=("A_ppo", "B_ablations", "C_diagnosis", "D_grpo")) -> Path:
    """root/submission made afresh, holding ``folders`` of ``source`` (files only, notebooks left out)."""
    shutil.rmtree(root / "submission", ignore_errors=True)
    (root / "submission").mkdir()
    for folder in folders:
        shutil.copytree(source / folder, root / "submission" / folder,
                        ignore=shutil.ignore_patterns("*.ipynb", "__pycache__", "*.png"))
    return root / "submission"


def graded_by_the_command(image: dict, tmp_path: Path) -> dict[str, float]:
    """`autograder grade` on the same upload, course, overlay and seeds, reading the image's run cache:
    each check's score by the name results.json gives it."""
    root = image["root"]
    command = Path(sys.executable).parent / "autograder"
    env = {**os.environ, "AUTOGRADER_CACHE": str(root / "cache")}
    env.pop("AUTOGRADER_PRIVATE", None)
    done = subprocess.run([str(command), "grade", str(root / "submission"), "--seeds", "grading", "--course",
                           str(root / "source" / "course.yml"), "--private", str(image["overlay"]), "--json",
                           str(tmp_path / "report.json")], env=env, capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    return {f"{c['id']}: {c['name']}": c["score"] for project in report["projects"].values()
            for c in project["checks"]}


def test_the_image_builds_from_the_zip_alone_and_prepares_the_grading_runs_once(image):
    """setup.sh's prepare step, in a venv holding only requirements.txt's packages, imports everything grading needs
    from the zip, and trains the runs of the grading seeds (C's fresh runs, B.bar's) into /autograder/cache."""
    assert image["prepared"].returncode == 0, image["prepared"].stderr
    setup = (image["root"] / "source" / "setup.sh").read_text()
    assert "AUTOGRADER_CACHE=/autograder/cache" in setup and "--prepare /autograder" in setup
    made = {kind: sorted(p.name.split("_")[0] for p in image["made"] if p.parent.name == kind)
            for kind in ("c-fresh-runs", "b-bar-runs")}
    # per grading seed its runs and them shaped to their edges (C.fresh_runs); C.diagnose_rules' logs of one seed
    assert made["c-fresh-runs"] == ["boundary", *["edges"] * 3, *["runs"] * 3]
    assert made["b-bar-runs"] == ["runs"] * 6  # B.bar's runs of each grading seed (and the children's copy of each)


def test_the_image_grades_every_reference_with_full_marks_from_what_setup_prepared(image, tmp_path):
    """Every submission reads what the prepare step made, training nothing again; every check earns its points (so
    `autograder grade` gives the same scores: full marks are its only passing grade, and the stub's test below holds
    the two to each other where they can differ)."""
    root = image["root"]
    uploaded(root, paths.SOLUTIONS)
    results = run_autograder(root, image["python"])
    assert results["score"] == 78 and all(t["status"] == "passed" for t in results["tests"]), results["output"]
    assert {p: p.stat().st_mtime_ns for p in (root / "cache").rglob("*.npz")} == image["made"]
    course = load_course(root / "source" / "course.yml", private=False)
    assert {t["name"]: t["score"] for t in results["tests"]} == {
        f"{cid}: {PROJECTS[pid].checks[cid].name}": float(check.points)
        for pid, project in course.projects.items() for cid, check in project.checks.items()}
    text = json.dumps(results)
    assert not any(str(seed) in text for seed in GRADING_SEEDS) and "s3cret" not in text


def test_the_image_gives_every_stub_the_score_autograder_grade_gives(image, tmp_path):
    root = image["root"]
    uploaded(root, paths.ASSIGNMENTS)
    results = run_autograder(root, image["python"])
    assert results["tests"] and {t["name"][0] for t in results["tests"]} == set("ABCD")
    assert sum(t["score"] for t in results["tests"] if t["name"].startswith("D.")) == 0
    assert {t["name"]: t["score"] for t in results["tests"]} == graded_by_the_command(image, tmp_path)


def test_the_image_turns_a_crashing_upload_into_a_valid_zero(image):
    root = image["root"]
    submission = uploaded(root, paths.SOLUTIONS, folders=("A_ppo", "D_grpo"))
    (submission / "D_grpo" / "grpo.py").write_text("import sys\nsys.exit(3)\n")
    (submission / "A_ppo" / "ppo.py").write_text("raise MemoryError('all of it')\n")
    results = run_autograder(root, image["python"])
    assert results["score"] == 0 and results["tests"] and all(t["status"] == "failed" for t in results["tests"])
    assert "importing grpo.py called sys.exit(3)" in next(t for t in results["tests"]
                                                          if t["name"].startswith("D."))["output"]


GUIDE_BLOCK = re.compile(r"^<!-- tested in: tests/test_gradescope.py -->\n```bash\n(.*?)^```$", re.M | re.S)
VENV_LINE = "/usr/bin/python3 -m venv try/venv && try/venv/bin/pip install -q -r try/source/requirements.txt"


def test_the_instructor_guides_try_out_of_the_zip_runs_as_written(tmp_path):
    """Every line of the guide's block runs as written in a course folder `autograder init` made, but the venv's:
    its packages are linked in from this environment (no index is reached), as ``image_python`` does."""
    guide = (paths.KIT_ROOT / "docs" / "instructor-guide.md").read_text(encoding="utf-8")
    lines = [line for line in GUIDE_BLOCK.search(guide).group(1).splitlines() if line.strip()]
    assert VENV_LINE in lines
    course = reachable_folder("gradescope-walk-")
    try:
        bin_dir = Path(sys.executable).parent
        assert main(["init", str(course / "course")]) == 0
        folder = course / "course"
        (folder / "course.private.yml").write_text("seeds: {grading: [2026, 4711, 815]}\nsecret: walk-secret\n")
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        for name in ("AUTOGRADER_CACHE", "AUTOGRADER_PRIVATE", "AUTOGRADER_PYTHON", "AUTOGRADER_ROOT", "PYTHONPATH"):
            env.pop(name, None)
        at = lines.index(VENV_LINE)
        for before_the_venv, part in ((True, lines[:at]), (False, lines[at + 1:])):
            if not before_the_venv:
                requirements = (folder / "try" / "source" / "requirements.txt").read_text().split("\n")
                new_venv(folder / "try", required_distributions([line for line in requirements if line.strip()]))
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(part)], cwd=folder, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
        written = (folder / "try" / "results" / "results.json").read_text()
        assert done.stdout.rstrip().endswith(written.rstrip())  # the block's last line shows it
        results = json.loads(written)
        jsonschema.validate(results, SCHEMA)
        assert results["score"] == 20 and len(results["tests"]) == 9
    finally:
        shutil.rmtree(course, ignore_errors=True)


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


def test_an_image_without_the_secret_that_c_needs_fails_to_build_and_says_why(tmp_path, image_python):
    root = unpacked(build_zip(tmp_path / "ag.zip"), tmp_path / "autograder")  # built around the CLI's refusal
    done = prepared(root, image_python)
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


def test_an_assignment_grades_its_own_projects_and_no_other(tmp_path, image_python):
    """Built with --projects D, the autograder grades D alone: a C file in the upload is not graded, and an upload
    without D says what it expected."""
    root = unpacked(build_zip(tmp_path / "ag.zip", projects=["D"]), tmp_path / "autograder")
    (root / "submission" / "diagnostics.py").write_text("def diagnose(log):\n    return 'healthy'\n")
    results = run_autograder(root, image_python)
    assert results["score"] == 0 and not results["tests"]
    assert "expected a project folder (D_grpo/) or a project's module (grpo.py)" in results["output"]
    (root / "submission" / "grpo.py").write_text("def nothing(:\n")
    results = run_autograder(root, image_python)
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
