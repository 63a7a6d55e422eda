"""MkDocs hooks: the pages and pictures the build makes from the kit itself, added to the site as generated files
(nothing of them is written into docs/; `make pictures` copies the build's photographs into docs/img, so that the
pages read in the repository show them too, and a build puts its own in their place).

- reference/commands.md and reference/checks.md, from the CLI's parser and course.yml (docs_build/reference.py);
- img/*.png, photographs of the pages a real grading writes, and reference/figures.md with every project's figures
  (docs_build/shots.py);
- the student guide's example of `capstone-check`, a real run on a planted bug of the first graded project
  (docs_build/checker.py), put in place of the guide's marker.

`DOCS_PROJECTS` (comma-separated ids, default every project of the course) says which projects the build grades for
its pictures; the test suite builds with C alone."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path
from types import ModuleType

from mkdocs.structure.files import File


def _beside(name: str) -> ModuleType:
    """The module ``name``.py beside this file: MkDocs loads a hook by its path, so its folder is no package."""
    spec = importlib.util.spec_from_file_location(f"docs_build_{name}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _beside("reference")
shots = _beside("shots")
checker = _beside("checker")

_work = tempfile.TemporaryDirectory(prefix="kit-docs-")
_checked: dict[str, str] = {}  # the project of the student guide's example run, and what it printed


def _projects() -> tuple[list[str], list[str]]:
    """The projects to grade for the pictures, and those of the course left out."""
    from autograder.loader import load_course
    from autograder.paths import KIT_ROOT

    every = list(load_course(KIT_ROOT / "course.yml", private=False).projects)
    chosen = [p.strip().upper() for p in os.environ.get("DOCS_PROJECTS", "").split(",") if p.strip()]
    unknown = sorted(set(chosen) - set(every))
    if unknown:
        raise SystemExit(f"DOCS_PROJECTS names {', '.join(unknown)}; the course's projects are {', '.join(every)}")
    graded = [p for p in every if p in chosen] if chosen else every
    return graded, [p for p in every if p not in graded]


def _figures_page(figures: dict[str, list[tuple[str, str]]], left_out: list[str]) -> str:
    lines = ["# Each project's figures", "",
             "Drawn by the grader from the reference's own grading on the public seeds, as they appear in "
             "report.html and (beneath a student's) in compare.html. This page is made by the docs build.", ""]
    if left_out:
        lines += [f"This build graded {', '.join(figures)} only; `make docs` draws every project's "
                  f"(left out here: {', '.join(left_out)}).", ""]
    for pid, drawn in figures.items():
        lines += [f"## Project {pid}", ""]
        for name, caption in drawn:
            lines += [f"![{caption}](../img/{name})", "", f"*{caption}*", ""]
    return "\n".join(lines)


def on_files(files, config):
    from autograder.projects import PROJECTS

    work = Path(_work.name)
    img = work / "img"
    img.mkdir(exist_ok=True)
    projects, left_out = _projects()
    shots.grade_a_class(work, projects, whole=not left_out)
    example = projects[0]
    _checked.update(project=example, output=checker.checker_output(
        work, example, shots.named_mistakes(PROJECTS[example].folder)[0]))
    shots.terminal_page(work, f"capstone-check {example}", _checked["output"], checker.WIDTH)
    shots.gradescope_page(work, shots.SHOWN)
    shots.photograph(work, img)
    shots.what_was_photographed(work, img)
    figures = shots.draw_figures(work, img, projects)
    pages = {"reference/commands.md": reference.commands_page(), "reference/checks.md": reference.checks_page(),
             "reference/figures.md": _figures_page(figures, left_out)}
    for uri, text in pages.items():
        files.append(File.generated(config, uri, content=text))
    for picture in sorted(img.iterdir()):
        committed = files.get_file_from_path(f"img/{picture.name}")
        if committed is not None:  # the repository's copy (`make pictures`) gives way to this build's
            files.remove(committed)
        files.append(File.generated(config, f"img/{picture.name}", abs_src_path=str(picture)))
    return files


def on_page_markdown(markdown, page, config, files):
    """The student guide's marker, replaced by the run on_files made."""
    if checker.MARKER in markdown:
        return checker.with_output(markdown, _checked["output"], _checked["project"])
    return markdown
