"""``nbgrader generate_assignment`` releasing what ``autograder release`` releases: stubs, never the solutions.

nbgrader copies every file of the source folder into the release folder as it is, so its own command (formgrader's
"Generate" button) would hand out the reference modules with their solution regions. ``StripModuleSolutions``, listed
last among ``GenerateAssignment``'s preprocessors in ``nbgrader_config.py``, runs after that copy: it strips the
solution regions of each ``.py`` module nbgrader copied, and removes what the reference's own run left in the source
(B's ``results.json``). An error in it fails nbgrader's command, which then removes the
release folder it was writing, so a failure never leaves a solution behind.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.release import for_students, made_by_students, strip_solutions


class StripModuleSolutions(NbGraderPreprocessor):
    """Stub every released ``.py`` module of the assignment and drop the files each student makes from their own."""

    def preprocess(self, nb, resources):
        coursedir = CourseDirectory(config=self.config)  # the command's own, its command-line options included
        assignment = resources["nbgrader"]["assignment"]
        strip_release(Path(coursedir.format_path(coursedir.release_directory, ".", assignment)))
        return nb, resources


def strip_release(released: Path) -> None:
    """Strip the solution regions of each ``.py`` in the released folder ``released`` (nbgrader's verbatim copies of
    the source's), have its modules and READMEs name the students' checker (the hub's kernels have the students' kit,
    not the kit), and remove what the reference's own run left there."""
    for module in released.rglob("*.py"):
        relative = str(module.relative_to(released))
        module.write_text(for_students(strip_solutions(module.read_text(encoding="utf-8"), relative)),
                          encoding="utf-8")
    for page in released.rglob("*.md"):
        page.write_text(for_students(page.read_text(encoding="utf-8")), encoding="utf-8")
    for name in made_by_students(released.name):
        (released / name).unlink(missing_ok=True)
