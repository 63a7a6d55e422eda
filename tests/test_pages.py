"""The HTML pages in a real browser (Chromium, driven by Playwright) at 1280×800: nothing overflows the window, every
check's row is on screen and readable, every plot has loaded, and the console stays clean.

The pages are written from reports that cover every check of the course, with the bars of course.yml (the longest
of which once pushed the compare page's submission column off screen) and the data the plots are drawn from."""

from __future__ import annotations

import re
import shutil

import pytest

from autograder.classroom.rows import Row
from autograder.grading import figures_for, figures_of
from autograder.projects import PROJECTS
from autograder.report import Report, write_html
from autograder.report.compare import write_compare
from autograder.report.summary import write_summary

playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright is not installed (pip install -e '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,  # end to end: `make test-fast` leaves it out
              pytest.mark.skipif(CHROMIUM is None,
                                 reason="no Chromium on PATH (Debian/Ubuntu: apt-get install chromium)")]
WIDTH, HEIGHT = 1280, 800

PLOTTED = {  # the data each project's figures are drawn from, as the checks hand it back
    "A.bar": {"curves": [[None, 200.0, 480.0], [150.0, 300.0, 500.0]], "evaluated": [500.0, 480.0], "threshold": 450},
    "D.k_sweep": {"ks": [1, 4, 32], "success": [[0.06, 0.5, 0.5], [0.07, 0.49, 0.5]]},
    "D.chapter_tables": {"ks": [1, 2], "k_success": [0.06, 0.5], "k_chapter": [0.062, 0.5], "betas": [0.0, 0.5],
                         "beta_rows": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]],
                         "beta_chapter": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]]},
}
MESSAGE = ("expected the median return over the 3 grading seeds to be above 450 within 60 updates; measured 212.5 "
           "(seed 1 of 3: 180.25, seed 2 of 3: 212.5, seed 3 of 3: 498.0). A common cause: the advantages were not "
           "normalized per minibatch in `ppo_update`. ")


FOUND = ("A.gae.carries-across-truncation", "D.weights.loo-includes-self")  # recognised in every failed report


def findings_of(cid: str, fraction: float) -> dict:
    """The catalogue's findings of ``cid`` that a report scoring ``fraction`` carries (none when it passed)."""
    from autograder.projects.a_ppo.mistakes import MISTAKES as A
    from autograder.projects.d_grpo.mistakes import MISTAKES as D

    found = [{**A, **D}[f].finding.model_dump() for f in FOUND if f.startswith(cid + ".")]
    return {"findings": found} if found and fraction < 1 else {}


def report_of(course, name: str, fraction: float) -> tuple[Report, dict]:
    """A report of every check in the course, each scoring ``fraction`` of its points; and its figures."""
    report = {"submission": name, "seeds": "public", "score": 0.0, "max_score": 0.0, "projects": {}}
    for pid, project in course.projects.items():
        checks = [{"id": cid, "name": PROJECTS[pid].checks[cid].name, "score": round(c.points * fraction, 2),
                   "max_score": float(c.points), "passed": fraction == 1, "message": MESSAGE * (1 + len(cid) % 3),
                   "details": PLOTTED.get(cid, {"measured": 0.123456789, "expected": [1.0, 2.0, 3.0]}),
                   "seconds": 0.5, **findings_of(cid, fraction)} for cid, c in project.checks.items()]
        report["projects"][pid] = {"score": 0.0, "max_score": 0.0, "checks": checks}
    report = Report.from_json(report)
    return report, figures_for(report)


@pytest.fixture(scope="module")
def pages(tmp_path_factory, course):
    out = tmp_path_factory.mktemp("pages")
    student, figures = report_of(course, "a-student-with-a-rather-long-name@example.edu", 1 / 3)
    reference, _ = report_of(course, "reference", 1.0)
    write_html(student, figures, out / "report.html", {pid: p.title for pid, p in PROJECTS.items()})
    overlaid = {pid: figures_of(pid, PLOTTED, reference=PLOTTED) for pid in course.projects}
    write_compare(student, reference, overlaid, course, out / "compare.html")
    rows = [Row(f"student{i}", "graded", report_of(course, f"student{i}", i / 4)[0]) for i in range(5)]
    rows.append(Row("late", "no submission", reason="expected D_grpo/; found notes.txt"))
    write_summary(rows, course, out / "summary.html", list(course.projects))
    return out


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def opened(browser, path):
    """The page at 1280×800 once loaded, and the console errors (and uncaught errors) it logged."""
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri(), wait_until="load")
    return page, errors


def assert_fits_and_loads(page, errors):
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, "the page scrolls sideways"
    images = page.evaluate("""[...document.images].map(i => ({done: i.complete, natural: i.naturalWidth,
                               right: i.getBoundingClientRect().right}))""")
    assert images, "the page shows no plot"
    for image in images:
        assert image["done"] and image["natural"] > 0, "a plot did not load"
        assert image["right"] <= WIDTH, "a plot runs off the window"
    assert errors == []


def assert_rows_readable(page, check_ids):
    """Every check's row is displayed, inside the window, in a legible font, and no cell cuts its text off."""
    rows = page.evaluate("""ids => ids.map(id => {
        const row = [...document.querySelectorAll('tr')].find(r => r.cells[0] && r.cells[0].textContent.includes(id));
        if (!row) return {id, found: false};
        const box = row.getBoundingClientRect();
        const cells = [...row.cells].map(c => ({left: c.getBoundingClientRect().left,
            right: c.getBoundingClientRect().right, cut: c.scrollWidth > c.clientWidth + 1,
            font: parseFloat(getComputedStyle(c).fontSize), shown: c.offsetWidth > 0 && c.offsetHeight > 0}));
        return {id, found: true, width: box.width, height: box.height, cells};
    })""", list(check_ids))
    for row in rows:
        assert row["found"], f"no row for {row['id']}"
        assert row["width"] > 0 and row["height"] > 0, f"{row['id']}: row not displayed"
        for cell in row["cells"]:
            assert cell["shown"] and cell["left"] >= 0 and cell["right"] <= WIDTH, f"{row['id']}: a cell is off screen"
            assert not cell["cut"], f"{row['id']}: a cell cuts its text off"
            assert cell["font"] >= 11, f"{row['id']}: text of {cell['font']} px"


def test_the_report_page_fits_the_window(browser, pages, course):
    page, errors = opened(browser, pages / "report.html")
    assert_fits_and_loads(page, errors)
    assert_rows_readable(page, [cid for project in course.projects.values() for cid in project.checks])
    widths = page.evaluate("[...document.querySelectorAll('td.what')].map(c => c.getBoundingClientRect().width)")
    assert widths and min(widths) >= 200, f"the 'what it checks' column is squeezed to {min(widths or [0]):.0f} px"
    assert "`" not in page.evaluate("document.body.innerText"), "a message shows its backticks"
    assert "ppo_update" in page.evaluate("[...document.querySelectorAll('td code')].map(c => c.textContent)")
    scores = page.evaluate("[...document.querySelectorAll('td.score, b, h2')].map(e => e.textContent)")
    assert any("0.67 / 2" in text for text in scores)  # two points, a third of them: rounded to two decimals
    assert not any(re.search(r"\d\.\d{3}", text) for text in scores), "a score with more than two decimals"


def test_the_compare_page_keeps_both_columns_on_screen_whatever_the_bar(browser, pages, course):
    page, errors = opened(browser, pages / "compare.html")
    assert_fits_and_loads(page, errors)
    assert_rows_readable(page, [cid for project in course.projects.values() for cid in project.checks])
    headers = page.evaluate("[...document.querySelectorAll('th')].map(h => h.getBoundingClientRect().right)")
    assert headers and max(headers) <= WIDTH, "the reference column is off screen"


def test_the_summary_page_fits_the_window(browser, pages, course):
    page, errors = opened(browser, pages / "summary.html")
    assert_fits_and_loads(page, errors)
    assert_rows_readable(page, [cid for project in course.projects.values() for cid in project.checks])
    assert "late" in page.inner_text("body")


def test_the_summary_page_lists_the_classs_mistakes_with_counts_and_who(browser, pages):
    page, errors = opened(browser, pages / "summary.html")
    rows = page.evaluate("[...document.querySelectorAll('tr.finding-row')].map(r => r.innerText.split('\\t'))")
    assert [row[1] for row in rows] == sorted(FOUND) and all(row[3] == "4" for row in rows), rows
    assert all("student0" in row[4] and "student4" not in row[4] for row in rows)
    assert page.evaluate("document.querySelector('#findings ~ figure img').naturalWidth") > 0
    lines = (pages / "findings.csv").read_text().splitlines()
    assert lines[0] == "check,finding,mistake,students,who" and len(lines) == 1 + len(FOUND)


def test_the_student_page_names_the_mistakes_recognised(browser, pages):
    page, errors = opened(browser, pages / "report.html")
    found = page.evaluate("[...document.querySelectorAll('li.finding')].map(li => li.innerText)")
    assert len(found) == len(FOUND) and "your leave-one-out mean includes the sample itself" in " ".join(found)


@pytest.fixture(scope="module")
def similarity_pages(tmp_path_factory):
    """The similarity report of a small class of D: a verbatim copy, a renamed one with long names, the reference."""
    from autograder import paths
    from autograder.similarity import similarity_report

    base = tmp_path_factory.mktemp("similarity")
    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    stub = (paths.ASSIGNMENTS / "D_grpo" / "grpo.py").read_text()
    class_ = {"a-student-with-a-rather-long-name@example.edu": reference.replace("theta", "a_very_long_name_" * 6),
              "bo": reference, "cy": stub}
    for student, source in class_.items():
        (base / "class" / student / "D_grpo").mkdir(parents=True)
        (base / "class" / student / "D_grpo" / "grpo.py").write_text(source)
    similarity_report(base / "class", base / "out", paths.BUNDLED, {"D": "D_grpo"}, {"D": PROJECTS["D"].title})
    return base / "out"


def test_the_similarity_report_fits_the_window_and_opens_each_pair(browser, similarity_pages):
    page, errors = opened(browser, similarity_pages / "similarity.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, "the page scrolls sideways"
    assert errors == []
    assert_rows_readable(page, ["1", "2", "3"])
    assert "For course staff only" in page.inner_text("body")
    with page.expect_navigation():
        page.click("table.pairs a >> nth=0")
    assert page.url.endswith("similarity/D-1.html")


def test_the_side_by_side_page_shows_both_columns_and_links_matching_regions(browser, similarity_pages):
    page, errors = opened(browser, similarity_pages / "similarity" / "D-1.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, "the page scrolls sideways"
    assert errors == []
    sides = page.evaluate("""[...document.querySelectorAll('.side')].map(s => {
        const b = s.getBoundingClientRect(); return {left: b.left, right: b.right, top: b.top}; })""")
    assert len(sides) == 2 and sides[0]["right"] <= sides[1]["left"] and sides[1]["right"] <= WIDTH
    assert abs(sides[0]["top"] - sides[1]["top"]) < 1, "the two sides are not side by side"
    marks = page.evaluate("""[...document.querySelectorAll('a.m')].map(m => ({id: m.id, href: m.getAttribute('href'),
        side: m.closest('.side') === document.querySelectorAll('.side')[0] ? 0 : 1,
        background: getComputedStyle(m).backgroundColor}))""")
    assert {m["side"] for m in marks} == {0, 1}, "matching regions are not highlighted on both sides"
    assert all(m["background"] not in ("rgba(0, 0, 0, 0)", "transparent") for m in marks)
    first = next(m for m in marks if m["side"] == 0 and m["id"] and m["href"])
    page.click(f"#{first['id']}")
    target = first["href"][1:]
    assert page.evaluate("location.hash") == f"#{target}"
    box = page.evaluate(f"document.getElementById('{target}').getBoundingClientRect().top")
    assert -1 <= box < HEIGHT, "the matching region is not scrolled into view"
    fonts = page.evaluate("[...document.querySelectorAll('pre')].map(p => parseFloat(getComputedStyle(p).fontSize))")
    assert fonts and min(fonts) >= 11
