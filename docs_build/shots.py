"""The docs' pictures, made from a real grading: the reference and the released stubs are graded as a class of two
(`grade-all`), the stubs are compared with the reference (`compare`) and the class's code is compared (`similarity`);
headless Chromium, driven by Playwright as the page tests drive it, photographs each page, and every project's
figures are drawn from the reference's own report.

`projects` says which projects are graded: the full build grades A–D; the suite's build grades C alone, which takes
seconds, and says on the figures page which projects it left out."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.loader import load_course
from autograder.grading import figures_for
from autograder.paths import KIT_ROOT
from autograder.projects import PROJECTS
from autograder.report import Report

WIDTH, HEIGHT = 1280, 800
STUDENTS = {"reference": "solutions", "stubs": "assignments"}  # a class of two: who, and where their files come from
PAGES = {  # picture name -> (page under the work folder, what it shows)
    "report": ("grades/stubs/report.html", "a student's report.html: the released stubs, graded"),
    "summary": ("grades/summary.html", "summary.html: the class's grades, for the instructor"),
    "compare": ("compare.html", "compare.html: a submission beside the reference, for a TA"),
    "similarity": ("similarity/similarity.html", "similarity.html: who wrote it, for staff"),
}


def _autograder(*args: str, cwd: Path) -> None:
    """Runs an `autograder` command on the kit's own course, as an instructor would in its folder."""
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_PRIVATE"}
    done = subprocess.run([sys.executable, "-m", "autograder", "--course", str(KIT_ROOT), *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"autograder {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def _hand_out_c_logs(work: Path, private: list[str]) -> None:
    """Each student's own logs of Project C, as a course hands them out (`c-logs`), in place of the example set."""
    (work / "ids.txt").write_text("".join(f"{student}\n" for student in STUDENTS))
    _autograder("c-logs", "--roster", "ids.txt", "--out", "c-logs", *private, cwd=work)
    for student in STUDENTS:
        logs = work / "class" / student / PROJECTS["C"].folder / "logs"
        for log in (work / "c-logs" / student).iterdir():
            shutil.copy(log, logs / log.name)


def grade_a_class(work: Path, projects: list[str]) -> None:
    """The reference and the stubs as two students; the stubs compared with the reference; the class's code. A
    throwaway course secret stands in for the course's, so that C's logs are each student's own."""
    chosen = ",".join(projects)
    for student, source in STUDENTS.items():
        for pid in projects:
            folder = PROJECTS[pid].folder
            shutil.copytree(KIT_ROOT / source / folder, work / "class" / student / folder)
    public = load_course(KIT_ROOT / "course.yml", private=False).seeds.public  # graded on these anyway
    (work / "overlay.yml").write_text(f"seeds: {{grading: {list(public)}}}\nsecret: {secrets.token_urlsafe(32)}\n")
    private = ["--private", str(work / "overlay.yml")]
    if "C" in projects:
        _hand_out_c_logs(work, private)
    _autograder("grade-all", "class", "--out", "grades", "--projects", chosen, "--seeds", "public", *private,
                cwd=work)
    compared = projects[-1]  # one project is enough to show the page; the last is the cheapest of the quick build
    _autograder("compare", "class/stubs", "--projects", compared, "--out", "compare.html", *private, cwd=work)
    _autograder("similarity", "class", "--out", "similarity", "--projects", chosen, cwd=work)


def photograph(work: Path, out: Path) -> dict[str, str]:
    """A PNG of each page at 1280 px wide, whole; the picture's file name and what it shows."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("the docs' pictures need Chromium on PATH (Debian/Ubuntu: apt-get install chromium)")
    made = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, (page_path, caption) in PAGES.items():
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto((work / page_path).as_uri(), wait_until="load")
            page.screenshot(path=str(out / f"{name}.png"), full_page=True)
            page.close()
            made[f"{name}.png"] = caption
        browser.close()
    return made


def draw_figures(work: Path, out: Path, projects: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each project's figures, drawn from the reference's report as the grader draws them: file name, caption."""
    report = Report.from_json(json.loads((work / "grades" / "reference" / "report.json").read_text()))
    drawn = figures_for(report)
    figures = {}
    for pid in projects:
        figures[pid] = []
        for number, (caption, png) in enumerate(drawn.get(pid, []), start=1):
            if png is None:
                raise RuntimeError(f"project {pid}'s figure could not be drawn from the reference: {caption}")
            name = f"figure-{pid}-{number}.png"
            (out / name).write_bytes(png)
            figures[pid].append((name, caption))
    return figures
