"""``autograder similarity``: the TA's second look, a code-similarity report over a whole class.

For every project, every student's submitted code (modules and notebooks' code cells) is compared with every other
student's, with the course's reference solution and with any outside folder (``--against``: public implementations,
last year's class). The released stubs are boilerplate and never count. Tokenize-level winnowing of the kit's own
(``tokens``, ``fingerprints``), an inverted index so that only pairs that share a fingerprint are scored (``index``),
and static pages (``pages``). Staff only: nothing here is read by grading or by a student's report.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.similarity.index import COMMON_SHARE, FLAG, ProjectComparison, Source, compare
from autograder.similarity.tokens import CodeFile, code_files, notebook_code


@dataclass
class Layout:
    """Where a project's code is: the students' folders, the stubs, the reference and the outside folders."""

    students: list[tuple[str, Path]]  # (student id, that student's folder holding project folders)
    course_root: Path | None  # holding assignments/ and solutions/
    against: list[Path]


def stub_files(course_root: Path | None, folder: str) -> tuple[list[CodeFile], str]:
    """The released stubs of a project, and where they came from: ``assignments/<folder>/``, else the reference with
    its solution regions stripped as ``autograder release`` strips them."""
    if course_root is None:
        return [], "none"
    released = course_root / "assignments" / folder
    if released.is_dir():
        return code_files(released), str(released)
    solutions = course_root / "solutions" / folder
    if not solutions.is_dir():
        return [], "none"
    from autograder.release import ReleaseError, strip_solutions

    def strip(text: str) -> str:
        try:
            return strip_solutions(text)
        except ReleaseError:
            return text

    stubs = []
    for code in code_files(solutions):
        if code.name.endswith(".ipynb"):
            stubs.append(notebook_code((solutions / code.name).read_text(encoding="utf-8", errors="replace"),
                                       code.name, transform=strip) or code)
        else:
            text = strip(code.text)
            stubs.append(CodeFile(code.name, text, [(1, text)]))
    return stubs, f"{solutions} with the solution regions stripped"


def against_sources(folder: Path, project_folder: str) -> list[Source]:
    """The sources an outside folder gives a project: its ``<project folder>/`` when it has one; else, for a class
    laid out as ``<name>/<project folder>/`` (last year's), one source per such folder; else all its code, as one."""
    label = folder.name or str(folder)
    if (folder / project_folder).is_dir():
        return [Source(f"{label}", "against", functools.partial(code_files, folder / project_folder))]
    inner = folder / "submitted" if (folder / "submitted").is_dir() else folder
    members = sorted(p for p in inner.iterdir() if p.is_dir() and (p / project_folder).is_dir()) if inner.is_dir() \
        else []
    if members:
        return [Source(f"{label}/{p.name}", "against", functools.partial(code_files, p / project_folder))
                for p in members]
    return [Source(label, "against", functools.partial(code_files, folder))]


def sources_of(layout: Layout, project_folder: str) -> list[Source]:
    sources = [Source(student, "student", functools.partial(code_files, folder / project_folder))
               for student, folder in layout.students if (folder / project_folder).is_dir()]
    if layout.course_root is not None and (layout.course_root / "solutions" / project_folder).is_dir():
        sources.append(Source("reference", "reference",
                              functools.partial(code_files, layout.course_root / "solutions" / project_folder)))
    for folder in layout.against:
        sources += against_sources(folder, project_folder)
    return sources


def compare_class(layout: Layout, projects: dict[str, str], common: float = COMMON_SHARE, flag: float = FLAG,
                  progress=None) -> list[ProjectComparison]:
    """``projects``: id -> project folder. One comparison per project, in the order given; ``progress(pid)`` hears
    each one finish."""
    found = []
    for pid, project_folder in projects.items():
        stubs, _ = stub_files(layout.course_root, project_folder)
        found.append(compare(pid, sources_of(layout, project_folder), stubs, common=common, flag=flag))
        if progress:
            progress(pid)
    return found


def similarity_report(root: Path, out: Path, course_root: Path | None, projects: dict[str, str],
                      titles: dict[str, str] | None = None, against: list[Path] | None = None,
                      common: float = COMMON_SHARE, flag: float = FLAG, progress=None):
    """Compare the class under ``root`` (``submitted/<student>/`` or ``<student>/``) project by project and write
    ``out/similarity.html``, its pair pages and ``out/similarity.csv``; returns (page, csv, comparisons)."""
    from autograder.class_folder import students_in
    from autograder.similarity.pages import write_report

    started = time.perf_counter()
    layout = Layout(students_in(root), course_root, list(against or []))
    comparisons = compare_class(layout, projects, common=common, flag=flag, progress=progress)
    about = [f"Class {root} ({len(layout.students)} student folders), compared",
             f"on {time.strftime('%Y-%m-%d %H:%M')} in {time.perf_counter() - started:.0f} s."]
    sources = [f"stubs from {stub_files(course_root, folder)[1]}" for folder in projects.values()]
    if sources:
        about.append("Boilerplate: " + "; ".join(sources) + ".")
    page, table = write_report(comparisons, out, titles or {}, about, flag)
    summary = out / "summary.html"
    if summary.is_file():
        from autograder.report.summary import link_similarity
        link_similarity(summary)
    return page, table, comparisons


__all__ = ["similarity_report", "compare_class", "Layout", "COMMON_SHARE", "FLAG"]
