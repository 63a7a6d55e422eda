"""The guides' command blocks, run as written: each ```bash block under a `<!-- tested: NAME -->` line of the README
or a page of the documentation site (docs/*.md) is run verbatim by bash in a fresh course folder, so the guides and
the kit cannot drift apart.

The folder is what a reader has after `make grade` in the kit (or `autograder init` and a venv): course.yml,
solutions/, assignments/, nbgrader_config.py and `.venv` (here a link to the test's environment, so `source
.venv/bin/activate` works), plus two downloaded submissions (alice: the reference of D; bob: D's stubs). Its
course.yml keeps two quick checks of D, and D is its only project, so the blocks run in seconds; the commands
are the README's, word for word.
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.kit import init_course

from tests.support.grading import quick_course_data

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

GUIDES = [paths.KIT_ROOT / "README.md", *sorted((paths.KIT_ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"^<!-- tested: (\S+) -->\n```bash\n(.*?)^```$", re.M | re.S)
QUICK = ("D.weights", "D.kl_penalty")


def blocks() -> dict[str, str]:
    found = [block for guide in GUIDES if guide.is_file() for block in MARK.findall(guide.read_text(encoding="utf-8"))]
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), f"two tested blocks share a name: {names}"
    return dict(found)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    folder = init_course(tmp_path_factory.mktemp("readme") / "kit")
    data = quick_course_data({"D": QUICK}, folder / "course.yml")
    (folder / "course.yml").write_text(yaml.safe_dump(data))
    for kind in ("solutions", "assignments"):  # D alone, so `autograder release` releases D alone
        for project in (folder / kind).iterdir():
            if project.name != "D_grpo":
                shutil.rmtree(project)
    (folder / ".venv").symlink_to(sys.prefix)
    shutil.copytree(folder / "solutions" / "D_grpo", folder / "submissions" / "alice" / "D_grpo")
    shutil.copytree(folder / "assignments" / "D_grpo", folder / "submissions" / "bob" / "D_grpo")
    return folder


def run_block(base: Path, where: Path, text: str) -> subprocess.CompletedProcess:
    folder = shutil.copytree(base, where, symlinks=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "AUTOGRADER_PRIVATE")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if Path(p) != Path(sys.executable).parent)
    env["HOME"] = str(folder)
    if ".venv/bin/activate" not in text:  # the guides' standing assumption: the venv is active in this shell
        text = f"source .venv/bin/activate\n{text}"
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"the guide's block failed:\n{text}\n{done.stdout}\n{done.stderr}"
    return done


def scores(report: Path) -> dict:
    data = json.loads(report.read_text())
    return {c["id"]: c["score"] for p in data["projects"].values() for c in p["checks"]}


def _student(folder, done):
    assert "not implemented" in done.stdout and "assignments/D_grpo" in done.stderr


def _install(folder, done):
    assert (folder / "my-course" / "course.yml").is_file() and (folder / "my-course" / "solutions" / "D_grpo").is_dir()
    assert "course.private.yml" in (folder / "my-course" / ".gitignore").read_text()


def _instructor(folder, done):
    assert scores(folder / "out" / "alice" / "report.json") == {"D.weights": 2, "D.kl_penalty": 1}
    assert (folder / "out" / "alice" / "report.html").is_file()
    rows = (folder / "grades" / "grades.csv").read_text()
    assert "alice" in rows and "bob" in rows and (folder / "grades" / "summary.html").is_file()


def _gradescope(folder, done):
    with zipfile.ZipFile(folder / "autograder.zip") as archive:
        assert {"setup.sh", "run_autograder", "course.yml"} <= set(archive.namelist())
        assert b"2718281" in archive.read("course.private.yml")
        assert json.loads(archive.read("assignment.json")) == {"projects": ["D"]}


def _course(folder, done):
    course = folder / "my-course"
    assert "secret:" in (course / "course.private.yml").read_text()
    assert (course / "course.private.yml").stat().st_mode & 0o077 == 0
    assert "raise NotImplementedError()" in (course / "assignments" / "C_diagnosis" / "diagnostics.py").read_text()
    for student in ("alice", "bob"):
        assert sorted(p.name for p in (course / "c-logs" / student).iterdir()) == [
            "agent_a.npz", "agent_b.npz", "agent_c.npz"]
    with zipfile.ZipFile(course / "autograder.zip") as archive:
        assert json.loads(archive.read("assignment.json")) == {"projects": ["C"]}
        assert b"secret:" in archive.read("course.private.yml"), "the zip holds the secret C's grading needs"
    assert (course / "student-kit" / "dist" / "rl_capstone_student-0.1.0-py3-none-any.whl").is_file()
    ignored = (course / ".gitignore").read_text().splitlines()
    assert {"course.private.yml", "autograder.zip", "c-logs/"} <= set(ignored)


def _ta(folder, done):
    page = (folder / "compare.html").read_text()
    assert "submission</th><th>reference</th>" in page and "D.kl_penalty" in page
    assert re.search(r"D.kl_penalty.*?0 / 1.*?1 / 1", page, re.S), "the stub scores 0 beside the reference's 1"
    rows = (folder / "similarity" / "similarity.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("D,alice,reference,reference,1.000"), rows  # bob: the stubs alone
    assert (folder / "similarity" / "similarity.html").is_file()


def _nbgrader(folder, done):
    assert "raise NotImplementedError()" in (folder / "autograded" / "bob" / "D_grpo" / "grpo.py").read_text()
    assert (folder / "feedback" / "bob" / "D_grpo" / "D_grpo.html").is_file()
    with open(folder / "grades.csv", newline="") as handle:
        row = next(row for row in csv.DictReader(handle) if (row["student_id"], row["assignment"]) == ("bob", "D_grpo"))
    assert float(row["score"]) == 0, "the stubs, submitted and graded, score nothing"
    assert float(row["max_score"]) >= 3, "D.weights (2) and D.kl_penalty (1) are graded cells"


CHECKS = {"student": _student, "install": _install, "instructor": _instructor, "gradescope": _gradescope,
          "ta": _ta, "nbgrader": _nbgrader, "course": _course}


def test_every_section_has_a_tested_block():
    assert set(blocks()) == set(CHECKS), "each tested block of the guides needs its check, and each check its block"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_readme_block_works_as_written(name, base, tmp_path):
    text = blocks().get(name)
    if text is None:
        pytest.skip(f"no block of the guides marked `tested: {name}`")
    done = run_block(base, tmp_path / "kit", text)
    CHECKS[name](tmp_path / "kit", done)
