"""The tests stand on their own: what they share lives in tests/support/ and is imported by its name from the kit's
root; no test imports a benchmark (benchmarks may import the tests' support, never the reverse); no code in the
suite, the benchmarks or the docs build adds a folder to the module search path; and no page or comment points to a
tracker's issue number, which means nothing to a reader of the kit."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from autograder import paths

ROOT = paths.KIT_ROOT
SEARCH_PATH_EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)\s*\(|\[\s*:?\s*0?\s*:?\s*\]\s*=|\+=)")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues?\s+#?\d+|(?<![\w&/])#\d{1,3}\b(?![\w-])")


def python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def imported_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def edits_of_the_search_path(text: str) -> list[str]:
    """The lines of ``text`` that add to ``sys.path`` (restoring a saved copy, ``sys.path[:] = saved``, is not one)."""
    return [line.strip() for line in text.splitlines()
            if SEARCH_PATH_EDIT.search(line) and "sys.path[:] = " not in line]


def test_the_search_path_edit_finder_finds_each_form():
    found = edits_of_the_search_path("sys.path.insert(0, 'x')\nsys.path.append(p)\nsys.path[:0] = [a]\n"
                                     "sys.path += [b]\nsys.path[:] = saved\nprint(sys.path)\n")
    assert len(found) == 4, found


def test_no_test_benchmark_or_docs_build_module_edits_the_search_path():
    edits = {str(path.relative_to(ROOT)): found for path in python_files("tests", "benchmarks", "docs_build")
             if path.name != Path(__file__).name and (found := edits_of_the_search_path(path.read_text()))}
    assert not edits, edits


def test_no_test_imports_a_benchmark():
    importing = [str(path.relative_to(ROOT)) for path in python_files("tests")
                 if any(name == "benchmarks" or name.startswith("benchmarks.") for name in imported_names(path))]
    assert not importing, importing


def test_the_suite_imports_its_shared_code_as_tests_support():
    top_level = {"conftest", "mutants", "planted", "student_bundle", "student_kit_verdicts", "similarity",
                 "similarity_honest", "similarity_pieces", "a_proof_of_learning", "replay_gaps"}
    loose = {str(path.relative_to(ROOT)): sorted(imported_names(path) & top_level)
             for path in python_files("tests", "benchmarks") if imported_names(path) & top_level}
    assert not loose, loose


def test_the_issue_number_finder_finds_each_form():
    assert ISSUE_NUMBER.search("as issue 28 asked") and ISSUE_NUMBER.search("see #42.")
    assert not ISSUE_NUMBER.search("colour #1f77b4, &#39; and page #top")


def test_no_code_test_or_page_names_an_issue_number():
    files = [*python_files("autograder", "capstone_check", "tests", "benchmarks", "docs_build", "rlkit"),
             *sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    named = {str(path.relative_to(ROOT)): hit.group(0) for path in files
             if path.name != Path(__file__).name and (hit := ISSUE_NUMBER.search(path.read_text(encoding="utf-8")))}
    assert not named, named
