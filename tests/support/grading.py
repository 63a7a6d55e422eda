"""What the tests share to build and grade submissions: a quick course, a submission from text, a planted bug applied
to the reference, a report's checks by id, the reference graded in a fresh process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from autograder import paths
from autograder.loader import load_course
from autograder.grading import grade


def quick_course_data(keep: dict[str, tuple[str, ...]], source: Path = paths.COURSE_FILE) -> dict:
    """``source``'s course data with only the projects of ``keep``, each with only the checks ``keep`` names (the rest
    named under ``skip``, as course.yml asks): a course that grades in seconds."""
    data = yaml.safe_load(source.read_text())
    data["projects"] = {pid: {"checks": {cid: cfg for cid, cfg in data["projects"][pid]["checks"].items()
                                         if cid in cids},
                              "skip": [cid for cid in data["projects"][pid]["checks"] if cid not in cids]}
                        for pid, cids in keep.items()}
    return data


def write_submission(root: Path, source: str, folder: str = "D_grpo", module: str = "grpo.py") -> Path:
    """A submission folder holding one project folder with ``source`` as its module."""
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / module).write_text(source, encoding="utf-8")
    return root


def copy_reference(root: Path, folder: str) -> Path:
    """A submission holding the reference's project folder, files only (symlinks followed, notebooks left out)."""
    shutil.copytree(paths.SOLUTIONS / folder, root / folder, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__",
                                                                                        "*.png"))
    return root


def mutate(source: str, old: str, new: str) -> str:
    """``source`` with ``old`` replaced by ``new`` exactly once; a mutant that no longer applies is a test failure."""
    count = source.count(old)
    assert count == 1, f"the planted bug's target occurs {count} times in the reference, expected once: {old!r}"
    return source.replace(old, new)


def checks_by_id(report: dict) -> dict[str, dict]:
    return {c["id"]: c for project in report["projects"].values() for c in project["checks"]}


def grade_checks(path: Path, course, checks: list[str] | None = None, seed_set: str = "public") -> dict[str, dict]:
    return checks_by_id(grade(path, course, seed_set=seed_set, checks=checks).report.to_json())


def without_timing(report: dict) -> dict:
    """A copy of ``report`` without each check's seconds, the one field two gradings of one submission may differ in."""
    report = json.loads(json.dumps(report))
    for project in report["projects"].values():
        for check in project["checks"]:
            check.pop("seconds")
    return report


def lean_course_file(folder: Path, bars: dict[str, dict]) -> Path:
    """The kit's course.yml written in ``folder`` with the bars of ``bars`` (check id: fields) updated: the same checks
    trained on fewer updates or samples, for tests that grade twice."""
    data = yaml.safe_load(paths.COURSE_FILE.read_text())
    for cid, fields in bars.items():
        data["projects"][cid.split(".")[0]]["checks"][cid]["bar"].update(fields)
    course_file = folder / "course.yml"
    course_file.write_text(yaml.safe_dump(data))
    return course_file


def graded_here_and_in_a_fresh_process(project: str, course_file: Path) -> tuple[dict, dict]:
    """The reference's reports for ``project`` on the grading seeds of ``course_file``, from this process and from a
    new one, each without its timing."""
    here = grade(paths.SOLUTIONS, load_course(course_file, private=False), seed_set="grading", projects=[project])
    again = grade_in_a_fresh_process([project], course_file=course_file)
    return without_timing(here.report.to_json()), without_timing(again)


def grade_in_a_fresh_process(projects: list[str], seed_set: str = "grading", course_file: Path | None = None) -> dict:
    """The reference's report from a new Python process, so nothing cached by this one is reused; graded with the
    course of ``course_file`` (default: the kit's)."""
    course_file = course_file or paths.COURSE_FILE
    code = ("import json; from autograder import paths; from autograder.loader import load_course; "
            f"from autograder.grading import grade; course = load_course({str(course_file)!r}, private=False); "
            f"print(json.dumps(grade(paths.SOLUTIONS, course, seed_set={seed_set!r}, "
            f"projects={projects!r}).report.to_json()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)
