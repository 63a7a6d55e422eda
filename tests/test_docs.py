"""The documentation site: it builds with `mkdocs build --strict` (a broken link, a missing page or a page left out of
the navigation fails), its reference pages and pictures come out of the build itself, the README stays short and
every page speaks of the kit alone (no issue numbers, no file outside the repository)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from autograder import paths
from autograder.loader import load_course

ROOT = paths.KIT_ROOT
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_short_and_links_into_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    for role in ("student-guide.md", "instructor-guide.md", "ta-guide.md"):
        assert f"docs/{role}" in readme, f"the README links no {role}"
    assert "make grade" in readme.split("\n\n")[1] and "make test" in readme.split("\n\n")[1], \
        "the two set-up commands come first"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_no_page_names_an_issue_or_a_file_outside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\bissues? \d+", text, re.I), "an issue number"
    assert "design.md" not in text.replace("design-notes.md", ""), "the old design document, which is not here"
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor of the same page
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT.resolve()), f"{target} points outside the repository"
        generated = path.relative_to(ROOT.resolve()).as_posix()
        if not generated.startswith("docs/reference/"):  # made by the build, checked by it
            assert path.exists(), f"{target} does not exist"


def test_the_pictures_read_in_the_repository_are_the_photographs_the_build_takes():
    """The pages read as Markdown find their pictures: `make pictures` copies every photograph the build takes into
    docs/img, and nothing else lies there."""
    shots = (ROOT / "docs_build" / "shots.py").read_text(encoding="utf-8")
    taken = set(re.findall(r'^    "([\w-]+)": \(f?"', shots[shots.index("PAGES = {"):], re.M))
    committed = {png.stem for png in (ROOT / "docs" / "img").glob("*")}
    assert taken and committed == taken, f"docs/img holds {sorted(committed)}; the build photographs {sorted(taken)}"
    for png in (ROOT / "docs" / "img").glob("*.png"):
        assert png.read_bytes().startswith(b"\x89PNG"), f"{png.name} is no PNG"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("no Chromium on PATH (Debian/Ubuntu: apt-get install chromium): the build photographs the pages")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "DOCS_PROJECTS": "C", "CI": "true", "NO_MKDOCS_2_WARNING": "1"}
    env.pop("AUTOGRADER_PRIVATE", None)
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


@pytest.mark.slow  # builds the site: `make test-fast` leaves it out
def test_the_site_builds_strictly_with_every_guide(site):
    for page in ("index", "student-guide", "instructor-guide", "ta-guide", "security", "architecture",
                 "benchmarks", "reference/commands", "reference/checks", "reference/figures", "pictures"):
        assert (site / f"{page}.html").is_file(), f"{page} was not built"


@pytest.mark.slow  # builds the site: `make test-fast` leaves it out
def test_the_pictures_are_photographs_of_a_real_grading(site):
    for name in ("report", "summary", "compare", "similarity", "capstone-check", "gradescope"):
        png = (site / "img" / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 20_000, f"{name}.png is not a photograph of a page"
    shown = json.loads((site / "img" / "class.json").read_text())  # what the photographed pages were made from
    assert shown["seed_sets"] == ["grading"], f"the class was graded on {shown['seed_sets']}, not the grading seeds"
    assert len(set(shown["scores"].values())) >= 3, f"no spread of scores: {shown['scores']}"
    by_what = {shown["class"][student]: score for student, score in shown["scores"].items()}
    assert 0 < by_what["generated"] < by_what["reference"], f"the generated mutant is not a mistake: {by_what}"
    assert by_what["empty"] == 0 and "late" not in by_what, f"the empty and late submissions: {by_what}"
    assert any(shown["shown_failing"].values()), f"the report shown names no mistake: {shown['shown_failing']}"
    assert shown["named_in_class"], "the summary's mistakes section is empty"
    figures = sorted((site / "img").glob("figure-C-*.png"))
    assert figures, "no figure of C was drawn from the reference's grading"
    page = (site / "reference" / "figures.html").read_text()
    assert "left out here: A, B, D" in page, "the quick build says which projects it did not draw"


@pytest.mark.slow  # builds the site: `make test-fast` leaves it out
def test_the_student_guide_shows_a_real_run_of_the_students_checker_on_a_planted_bug(site):
    """The guide's marker (what the page shows read in the repository) is replaced by a run the build made: the
    checker's own header, a failing row with its recognised mistake and the footer's three totals, in place."""
    marker = (ROOT / "docs" / "student-guide.md").read_text(encoding="utf-8")
    assert "On the documentation site (`make docs`), a real run of `capstone-check` stands here." in marker
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "student-guide.html").read_text()))
    shown = page[page.index("$ capstone-check C"):page.index("Read it from the top")]
    assert "Project C (" in shown and "public checks on ~/capstone/C_diagnosis, seeds [7, 8, 9]" in shown, shown
    assert re.search(r"^  C\.\w+ +0/\d+ +fail .*mistake recognised", shown, re.M), shown
    for total in ("earned here", "Left to final grading", "Predicted at final grading"):
        assert total in shown, shown
    assert "a real run of capstone-check stands here" not in page


@pytest.mark.slow  # builds the site: `make test-fast` leaves it out
def test_the_references_are_written_from_the_parser_and_the_course(site):
    commands = (site / "reference" / "commands.html").read_text()
    for name in ("grade", "check", "compare", "grade-all", "similarity", "gradescope", "release", "student-kit",
                 "init", "c-logs"):
        assert f"autograder {name}</code>" in commands, f"no section for autograder {name}"
    assert "--seeds" in commands and "--report" in commands
    checks = (site / "reference" / "checks.html").read_text()
    course = load_course(ROOT / "course.yml", private=False)
    for project in course.projects.values():
        for cid in project.checks:
            assert f"{cid}</code>" in checks, f"{cid} is missing from the checks reference"


GUIDES = [ROOT / "README.md", *(ROOT / "docs" / f"{name}.md" for name in (
    "index", "student-guide", "instructor-guide", "nbgrader", "cluster", "ta-guide"))]
BLOCK = re.compile(r"(?:^<!-- (tested: \S+|tested in: (\S+)) -->\n)?^```bash\n", re.M)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_shell_block_of_the_guides_is_run_by_a_test(guide):
    """A block marked `tested: NAME` runs as written in tests/test_readme.py; one marked `tested in: FILE` shows
    commands that FILE runs in an environment of its own (the students' wheel, a Dask cluster, a fresh clone)."""
    for marked, elsewhere in BLOCK.findall(guide.read_text(encoding="utf-8")):
        assert marked, f"a shell block of {guide.name} is run by no test"
        if elsewhere:
            assert (ROOT / elsewhere).is_file(), f"{guide.name} names {elsewhere}, which is not in the kit"
