"""The docs read in plain sentences: in the README and every page of docs/, a sentence holds 20 words on average and
no paragraph more than 120 words.

Three pages are left out. The design notes (docs/design-notes.md) and the benchmarks (docs/benchmarks.md) are records
kept for the kit's developers: each entry holds a decision or a measurement whole, with its numbers. The course.yml
reference (docs/course-yml.md) is written from the models that read course.yml (`python -m
autograder.course_reference`), so its wording is the code's. The other references the site shows (docs/reference/)
are made by the docs build and are not in docs/ at all.

What is measured is the prose a reader reads through. Left out: the front matter, fenced code blocks, tables
(lines starting with `|`), headings (`#`), HTML (lines starting with `<`, comments included) and images.

- A *paragraph* is a run of non-blank prose lines; each list item (`-`, `*` or `1.`) is a paragraph of its own.
- A *word* is a whitespace-separated token with a letter or a digit in it; an inline code span counts as one word and
  a link as the words of its text.
- A *sentence* ends at `.`, `?` or `!` followed by a space, or at the end of its paragraph (so a list item
  without a full stop is one sentence).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = {"design-notes.md", "benchmarks.md", "course-yml.md"}
GUIDES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in LEFT_OUT)]
MEAN_SENTENCE, LONGEST_PARAGRAPH = 20, 120

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
SKIPPED_LINE = re.compile(r"^\s*(\||#|<|!\[)")
LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")
CODE_SPAN = re.compile(r"`[^`]+`")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def paragraphs(markdown: str) -> list[str]:
    """The prose of a page, one string per paragraph or list item, code, tables, headings and HTML left out."""
    text = FENCE.sub("", FRONT_MATTER.sub("", markdown))
    found, current = [], []
    for line in text.splitlines():
        if not line.strip() or SKIPPED_LINE.match(line) or LIST_ITEM.match(line):
            if current:
                found.append(" ".join(current))
            current = [LIST_ITEM.sub("", line).strip()] if LIST_ITEM.match(line) else []
        else:
            current.append(line.strip())
    if current:
        found.append(" ".join(current))
    return [p for p in found if words(p)]


def words(prose: str) -> list[str]:
    plain = LINK.sub(r"\1", CODE_SPAN.sub("code", prose))
    return [token for token in plain.split() if re.search(r"\w", token)]


def sentences(paragraph: str) -> list[str]:
    plain = LINK.sub(r"\1", CODE_SPAN.sub("code", paragraph))
    return [s for s in SENTENCE_END.split(plain) if words(s)]


def measure(markdown: str) -> tuple[float, int]:
    """The page's mean words per sentence and the word count of its longest paragraph."""
    found = paragraphs(markdown)
    lengths = [len(words(s)) for p in found for s in sentences(p)]
    return sum(lengths) / max(len(lengths), 1), max((len(words(p)) for p in found), default=0)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_the_guides_sentences_are_short_on_average(guide):
    mean, _ = measure(guide.read_text(encoding="utf-8"))
    assert mean <= MEAN_SENTENCE, f"{guide.name}: {mean:.1f} words a sentence on average (at most {MEAN_SENTENCE})"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_no_paragraph_of_the_guides_is_long(guide):
    for paragraph in paragraphs(guide.read_text(encoding="utf-8")):
        count = len(words(paragraph))
        assert count <= LONGEST_PARAGRAPH, f"{guide.name}: a paragraph of {count} words: {paragraph[:80]}..."


def test_the_pages_left_out_are_there():
    """A page left out that is renamed or removed is no longer left out: its name goes from LEFT_OUT too."""
    assert all((ROOT / "docs" / name).is_file() for name in LEFT_OUT), LEFT_OUT


LONG = " ".join(["The grader runs every check on the student's folder and writes a report for each student."] * 9)


def test_the_measure_finds_a_long_paragraph_and_long_sentences():
    mean, longest = measure(f"# Title\n\n{LONG}\n")
    assert longest > LONGEST_PARAGRAPH and mean == 16
    mean, _ = measure("One sentence that goes on and on, " * 5 + "without a stop.\n")
    assert mean > MEAN_SENTENCE


def test_the_measure_leaves_out_code_tables_headings_and_html():
    page = ("---\ntitle: x\n---\n# A heading of many many words here\n\n```bash\n" + LONG + "\n```\n\n"
            f"| {LONG} |\n\n<!-- {LONG} -->\n\nShort words here.\n\n- One item\n- Two items here\n")
    assert paragraphs(page) == ["Short words here.", "One item", "Two items here"]
    assert measure(page) == (8 / 3, 3)
