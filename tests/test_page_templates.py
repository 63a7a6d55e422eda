"""Every HTML page is a Jinja2 template of autograder/report/templates/ (the similarity pages' of
autograder/similarity/templates/, extending the report's page), rendered with autoescape: no module writes
markup itself, so a value cannot reach a page unescaped through a forgotten call. The pages' own tests (what they
show, in a browser) are tests/test_pages.py and tests/test_student_pages.py; markup in student names, file names,
code and output: tests/test_robustness.py and tests/test_similarity.py."""

import ast
import re

from autograder import paths
from autograder.report.pages import OneLinePages, environment, render, text_html

TAG = re.compile(r"<(/?)(html|body|p|td|tr|table|div|span|a|h[1-6]|figure|img|code|b|pre|details|summary)\b")
MARKUP_ALLOWED = {"autograder/report/pages.py": "text_html sets a quoted `name` as code, after escaping the text",
                  "autograder/report/summary.py": "link_similarity finds where a rendered link goes in an older page"}


def markup_in(source: str) -> list[int]:
    """The lines of ``source`` whose string literals (f-strings included) hold an HTML tag."""
    return sorted({node.lineno for node in ast.walk(ast.parse(source))
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and TAG.search(node.value)})


def test_no_module_writes_markup_itself():
    found = {str(path.relative_to(paths.KIT_ROOT)): markup_in(path.read_text(encoding="utf-8"))
             for path in sorted(paths.PACKAGE.rglob("*.py"))}
    assert {name: lines for name, lines in found.items() if lines and name not in MARKUP_ALLOWED} == {}


def test_a_page_built_from_an_f_string_is_found():
    assert markup_in('row = f"<tr><td>{name}</td></tr>"\nplain = "no markup < here"\n') == [1]


def test_every_template_escapes_what_it_shows():
    assert environment().autoescape is True  # one environment renders every page
    shown = environment().from_string("{{ name }}").render(name="<b>x</b> & 'y'")
    assert shown == "&lt;b&gt;x&lt;/b&gt; &amp; &#39;y&#39;"


def test_the_similarity_pages_render_in_an_overlay_of_the_same_environment():
    from autograder.similarity.pages import _pages

    assert _pages().autoescape is True and _pages().filters is environment().filters
    assert _pages().get_template("pair.html").filename.endswith("similarity/templates/pair.html")


def test_quoted_code_in_a_message_is_set_as_code_after_escaping():
    assert text_html("call `f(x)` on <script>") == "call <code>f(x)</code> on &lt;script&gt;"


def test_a_template_over_many_lines_is_one_line_of_page():
    written = "<p>\n  <b>{{ n }}\n  / {{ m }}</b> two\n  words\n  {% if n %}<i>yes</i>{% endif %}\n</p>\n"
    one_line = "<p><b>{{ n }} / {{ m }}</b> two words{% if n %}<i>yes</i>{% endif %}</p>"
    assert OneLinePages.preprocess(None, written, "x.html") == one_line
    assert OneLinePages.preprocess(None, "a {\n  b: c;\n}\n", "x.css") == "a {\n  b: c;\n}\n"


def test_the_summary_link_and_the_report_render_alone():
    assert render("similarity_link.html").startswith("<p class='note' id='similarity'>")
