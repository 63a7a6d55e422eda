"""The docs' pictures, made from a real grading of a synthetic class of eight (`grade-all`): students made from the
reference, the released stubs and the planted bugs of tests/projects/<id>/mutants.py, so that the pages show a
spread of scores, failing checks and named mistakes. One student's submission is compared with the reference
(`compare`) and the class's code is compared (`similarity`). Headless Chromium, driven by Playwright as the page
tests drive it, photographs each page, and every project's figures are drawn from the reference's own report.

`projects` says which projects are graded: the full build grades A–D; the suite's build grades C alone, which takes
seconds, and says on the figures page which projects it left out."""

from __future__ import annotations

import ast
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
# The class: who, and what each hands in for every graded project. "mistake N" is the project's N-th planted bug
# that the grader names (a finding); "late" handed nothing in by grading time; "crash" exits as its module loads.
CLASS = {"ada": "reference", "ben": "mistake 1", "cleo": "mistake 2", "dev": "mistake 3", "eli": "stubs",
         "fay": "crash", "gus": "late", "hana": "mistake 1"}
QUICK = ("ada", "ben", "eli", "fay", "gus", "hana")  # a partial build's class: two mistakes' gradings fewer
REFERENCE = "ada"  # the student who hands in the reference, whose figures the figures page shows
SHOWN = "ben"  # the student whose report and comparison are photographed
MUTANTS = KIT_ROOT / "tests" / "projects"
PAGES = {  # picture name -> (page under the work folder, what it shows)
    "report": (f"grades/{SHOWN}/report.html", "a student's report.html: a failing check and its named mistake"),
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


def named_mistakes(folder: str) -> list[tuple[str, str, str]]:
    """The first planted bug of each check of a project's folder that the grader names, as (module, old, new), in
    the order of the tests' mutants files, read from them as literals or the files' own constants (nothing of tests/
    is imported)."""
    found = {}
    for source in sorted(MUTANTS.glob("*/mutants.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        named = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}  # a file's constants, such as a line

        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Mutant" and len(node.args) >= 7:
                _name, where, module, old, new, check, finding = (
                    ast.literal_eval(named.get(a.id, a) if isinstance(a, ast.Name) else a) for a in node.args[:7])
                if where == folder and finding and check not in found:
                    found[check] = (module, old, new)
    return list(found.values())


def _hand_in(student: str, what: str, pid: str, class_dir: Path) -> None:
    """``student``'s folder of project ``pid``, as CLASS describes it."""
    folder = PROJECTS[pid].folder
    target = class_dir / student / folder
    if what == "late":
        target.parent.mkdir(parents=True, exist_ok=True)
        return
    shutil.copytree(KIT_ROOT / ("assignments" if what == "stubs" else "solutions") / folder, target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    if what.startswith("mistake"):
        mistakes = named_mistakes(folder)  # B names mistakes of two checks only: the third student repeats one
        module, old, new = mistakes[(int(what.split()[1]) - 1) % len(mistakes)]
        source = (target / module).read_text(encoding="utf-8")
        (target / module).write_text(source.replace(old, new, 1), encoding="utf-8")
    elif what == "crash":
        module = target / f"{PROJECTS[pid].modules[0]}.py"
        module.write_text(module.read_text(encoding="utf-8") + "\nimport os\nos._exit(1)\n", encoding="utf-8")


def _hand_out_c_logs(work: Path, private: list[str]) -> None:
    """Each student's own logs of Project C, as a course hands them out (`c-logs`), in place of the example set."""
    handed_in = [s for s in CLASS if (work / "class" / s / PROJECTS["C"].folder).is_dir()]
    (work / "ids.txt").write_text("".join(f"{student}\n" for student in handed_in))
    _autograder("c-logs", "--roster", "ids.txt", "--out", "c-logs", "--jobs", "2", *private, cwd=work)
    for student in handed_in:
        logs = work / "class" / student / PROJECTS["C"].folder / "logs"
        for log in (work / "c-logs" / student).iterdir():
            shutil.copy(log, logs / log.name)


def grade_a_class(work: Path, projects: list[str], whole: bool = True) -> None:
    """The synthetic class of CLASS (the QUICK part of it unless the build is ``whole``); one student compared with
    the reference; the class's code. A throwaway course secret stands in for the course's, so that C's logs are each
    student's own."""
    chosen = ",".join(projects)
    for student, what in CLASS.items():
        for pid in projects if whole or student in QUICK else []:
            _hand_in(student, what, pid, work / "class")
    public = load_course(KIT_ROOT / "course.yml", private=False).seeds.public  # graded on these anyway
    (work / "overlay.yml").write_text(f"seeds: {{grading: {list(public)}}}\nsecret: {secrets.token_urlsafe(32)}\n")
    private = ["--private", str(work / "overlay.yml")]
    # compare takes no student id, so it sees the example logs of C the stubs ship, as `grade` without --student does
    shutil.copytree(work / "class" / SHOWN, work / "submission" / SHOWN)
    if "C" in projects:
        _hand_out_c_logs(work, private)
    _autograder("grade-all", "class", "--out", "grades", "--projects", chosen, "--seeds", "public", *private,
                cwd=work)
    compared = projects[-1]  # one project is enough to show the page; the last is the cheapest of the quick build
    _autograder("compare", f"submission/{SHOWN}", "--projects", compared, "--out", "compare.html", *private, cwd=work)
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
    report = Report.from_json(json.loads((work / "grades" / REFERENCE / "report.json").read_text()))
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


def what_was_photographed(work: Path, out: Path) -> dict:
    """What the class's grading gave, read from its reports and written beside the pictures as class.json, so a test
    can hold that the pictures show what they claim: each graded student's total, the shown student's failing rows
    with the mistakes named in them, and the mistakes named across the class."""
    graded, shown = {}, {}
    for student in CLASS:
        path = work / "grades" / student / "report.json"
        if path.is_file():
            report = json.loads(path.read_text())
            graded[student] = report["score"]
            if student == SHOWN:
                shown = {c["id"]: [f["id"] for f in c.get("findings", [])] for p in report["projects"].values()
                         for c in p["checks"] if not c["passed"]}
    named = sorted({f["id"] for student in graded for p in json.loads(
        (work / "grades" / student / "report.json").read_text())["projects"].values()
        for c in p["checks"] for f in c.get("findings", [])})
    said = {"scores": graded, "shown": SHOWN, "shown_failing": shown, "named_in_class": named}
    (out / "class.json").write_text(json.dumps(said, indent=1))
    return said
