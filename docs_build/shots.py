"""The docs' pictures, made from a real grading of a synthetic class of nine (`grade-all`) on private grading seeds
with a course secret, as an instructor grades: students made from the reference, the released stubs, the planted
bugs of tests/projects/<id>/mutants.py and a mistake no catalogue names (a mutant of the kit's generator,
tests/support/mutations.py), with a late and an empty submission, so that the pages show a spread of scores, failing
checks and named mistakes, and hide what a private-seed report hides. One student's submission is compared with the
reference (`compare`) and the class's code is compared (`similarity`). Headless Chromium, driven by Playwright as the
page tests drive it, photographs each page, a `capstone-check` terminal and one submission's results.json laid out
as Gradescope shows it; every project's figures are drawn from the reference's own report.

`projects` says which projects are graded: the full build grades A–D; the suite's build grades C alone, which takes
seconds, and says on the figures page which projects it left out."""

from __future__ import annotations

import ast
import html
import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.gradescope import results_from
from autograder.grading import figures_for
from autograder.paths import KIT_ROOT
from autograder.projects import PROJECTS
from autograder.report import Report

WIDTH, HEIGHT = 1280, 800
# The class: who, and what each hands in for every graded project. "mistake N" is the project's N-th planted bug
# that the grader names (a finding); "generated" is GENERATED's mutant, a mistake no catalogue names; "late" handed
# nothing in by grading time; "empty" handed in the project's folder with nothing in it; "crash" exits as its module
# loads.
CLASS = {"ada": "reference", "ben": "mistake 1", "cleo": "mistake 2", "dev": "generated", "eli": "stubs",
         "fay": "crash", "gus": "late", "hana": "mistake 1", "ivy": "empty"}
QUICK = ("ada", "ben", "dev", "eli", "fay", "gus", "hana", "ivy")  # a partial build's class: one grading fewer
# the grading seeds and secret of the class's private overlay: unsorted, none of them public
GRADING_SEEDS = [4711, 815, 2026]
# per project, the generated mutant a student hands in: (function, change) as the generator says them, stable while
# line numbers move; each is a real mistake that fails a check and that the grader names no known mistake for
GENERATED = {"A": ("clipped_surrogate", "1 + eps -> 1"), "B": ("clipped_value_loss", "2 -> 3"),
             "C": ("explained_variance", "1 -> 2"), "D": ("leave_one_out_weight", "r.sum() - r -> r.sum()")}
GENERATOR = KIT_ROOT / "tests" / "support" / "mutations.py"
REFERENCE = "ada"  # the student who hands in the reference, whose figures the figures page shows
SHOWN = "ben"  # the student whose report and comparison are photographed
MUTANTS = KIT_ROOT / "tests" / "projects"
PAGES = {  # picture name -> (page under the work folder, what it shows)
    "report": (f"grades/{SHOWN}/report.html", "a student's report.html: a failing check and its named mistake"),
    "summary": ("grades/summary.html", "summary.html: the class's grades, for the instructor"),
    "compare": ("compare.html", "compare.html: a submission beside the reference, for a TA"),
    "similarity": ("similarity/similarity.html", "similarity.html: who wrote it, for staff"),
    "capstone-check": ("terminal.html", "a student's terminal: capstone-check on a planted bug"),
    "gradescope": ("gradescope.html", "one submission's results.json, laid out as Gradescope shows it"),
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


def generated_mutant(pid: str) -> tuple[str, str]:
    """Project ``pid``'s GENERATED mutant as (module file, whole source), made by the kit's generator (loaded from its
    file: it needs nothing but the standard library)."""
    spec = importlib.util.spec_from_file_location("kit_mutations", GENERATOR)
    generator = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(generator)  # registered first: its dataclasses look their module up by name
    function, change = GENERATED[pid]
    for mutant in generator.generate(pid):
        if mutant.id.split(".")[1] == function and mutant.change == change:
            return mutant.module, mutant.source
    raise RuntimeError(f"the generator no longer makes {pid}'s mutant {change!r} of {function}: pick another in "
                       "GENERATED")


def _hand_in(student: str, what: str, pid: str, class_dir: Path) -> None:
    """``student``'s folder of project ``pid``, as CLASS describes it."""
    folder = PROJECTS[pid].folder
    target = class_dir / student / folder
    if what in ("late", "empty"):
        (target if what == "empty" else target.parent).mkdir(parents=True, exist_ok=True)
        return
    shutil.copytree(KIT_ROOT / ("assignments" if what == "stubs" else "solutions") / folder, target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    if what.startswith("mistake"):
        mistakes = named_mistakes(folder)  # B names mistakes of two checks only: the third student repeats one
        module, old, new = mistakes[(int(what.split()[1]) - 1) % len(mistakes)]
        source = (target / module).read_text(encoding="utf-8")
        (target / module).write_text(source.replace(old, new, 1), encoding="utf-8")
    elif what == "generated":
        module, source = generated_mutant(pid)
        (target / module).write_text(source, encoding="utf-8")
    elif what == "crash":
        module = target / f"{PROJECTS[pid].modules[0]}.py"
        module.write_text(module.read_text(encoding="utf-8") + "\nimport os\nos._exit(1)\n", encoding="utf-8")


def _hand_out_c_logs(work: Path, private: list[str]) -> None:
    """Each student's own logs of Project C, as a course hands them out (`c-logs`), in place of the example set."""
    handed_in = [s for s in CLASS if (work / "class" / s / PROJECTS["C"].folder / "logs").is_dir()]  # not the
    # late nor the empty: they hold no logs to replace
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
    (work / "overlay.yml").write_text(f"seeds: {{grading: {GRADING_SEEDS}}}\nsecret: {secrets.token_urlsafe(32)}\n")
    private = ["--private", str(work / "overlay.yml")]
    # compare takes no student id, so it sees the example logs of C the stubs ship, as `grade` without --student does
    shutil.copytree(work / "class" / SHOWN, work / "submission" / SHOWN)
    if "C" in projects:
        _hand_out_c_logs(work, private)
    _autograder("grade-all", "class", "--out", "grades", "--projects", chosen, "--seeds", "grading", *private,
                cwd=work)
    compared = projects[-1]  # one project is enough to show the page; the last is the cheapest of the quick build
    _autograder("compare", f"submission/{SHOWN}", "--projects", compared, "--out", "compare.html", *private, cwd=work)
    _autograder("similarity", "class", "--out", "similarity", "--projects", chosen, cwd=work)
    # the figures page draws the reference's own numbers, which a report on the grading seeds hides: its grading on
    # the public seeds, as `autograder grade` gives it to anyone
    _autograder("grade", f"class/{REFERENCE}", "--projects", chosen, "--seeds", "public", "--json",
                "reference.json", cwd=work)


TERMINAL = """<!doctype html><meta charset="utf-8"><title>capstone-check</title>
<style>body{{margin:0;background:#1e1e1e}}pre{{margin:0;padding:16px 20px;width:{columns}ch;color:#e6e6e6;
font:14px/1.45 "DejaVu Sans Mono",monospace;white-space:pre-wrap;word-break:break-all}}</style><pre>{text}</pre>"""


def terminal_page(work: Path, command: str, output: str, columns: int) -> None:
    """The student's terminal, ``columns`` wide, after ``command``, as a page the camera photographs (terminal.html):
    a longer line wraps, as a terminal wraps it."""
    page = TERMINAL.format(columns=columns, text=html.escape(f"$ {command}\n{output}"))
    (work / "terminal.html").write_text(page, encoding="utf-8")


GRADESCOPE = """<!doctype html><meta charset="utf-8"><title>Autograder Results</title>
<style>body{{margin:0;font:14px/1.4 sans-serif;background:#f5f5f5;color:black}}main{{max-width:1000px;margin:0 auto;
padding:20px}}h1{{font-size:20px}}.total{{font-size:18px;margin:8px 0 16px}}
.test{{background:#fff;border:1px solid #ddd;border-left:6px solid #2e7d32;margin:8px 0;padding:8px 12px}}
.failed{{border-left-color:#c62828}}.name{{font-weight:bold}}.score{{float:right}}
pre{{white-space:pre-wrap;margin:6px 0 0;font-size:13px}}</style>
<main><h1>Autograder Results</h1><div class="total">Total points {score} / {total}</div><pre>{output}</pre>
{tests}</main>"""


def gradescope_page(work: Path, student: str) -> None:
    """``student``'s results.json as the zip's run_autograder writes it (``gradescope.results_from`` on their
    report), laid out as Gradescope's results page shows it: the total, then each test with its score and output
    (gradescope.html). Gradescope itself is a web service, out of the build's reach."""
    report = Report.from_json(json.loads((work / "grades" / student / "report.json").read_text()))
    results = results_from(report, 0.0)
    tests = "".join(
        f'<div class="test {test["status"]}"><span class="name">{html.escape(test["name"])}</span>'
        f'<span class="score">{test["score"]:g} / {test["max_score"]:g}</span><pre>{html.escape(test["output"])}</pre>'
        "</div>" for test in results["tests"])
    (work / "gradescope.html").write_text(GRADESCOPE.format(
        score=f"{results['score']:g}", total=f"{sum(t['max_score'] for t in results['tests']):g}",
        output=html.escape(results["output"]), tests=tests), encoding="utf-8")


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
    """Each project's figures, drawn from the reference's report on the public seeds as the grader draws them: file
    name, caption."""
    report = Report.from_json(json.loads((work / "reference.json").read_text()))
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
    seed_sets = sorted({json.loads((work / "grades" / student / "report.json").read_text())["seeds"]
                        for student in graded})
    said = {"scores": graded, "seed_sets": seed_sets, "shown": SHOWN, "shown_failing": shown,
            "named_in_class": named, "class": CLASS}
    (out / "class.json").write_text(json.dumps(said, indent=1))
    return said
