"""``autograder init``: a new course folder made from the kit's bundled course.

The folder holds everything a course needs and nothing private: course.yml, nbgrader_config.py, the reference in
solutions/, the stubs in assignments/, and a .gitignore that keeps the private overlay (grading seeds, the course
secret), nbgrader's gradebook and the students' work out of the course's repository.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder import paths


class KitError(Exception):
    """A course folder cannot be made or released as asked; the message says what was expected and what was found."""


FILES = [paths.COURSE_NAME, "nbgrader_config.py"]
FOLDERS = ["solutions", "assignments"]
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", paths.PRIVATE_NAME, "gradebook.db")

GITIGNORE = f"""\
# the instructor's private overlay (grading seeds, the course secret) never enters the repository
{paths.PRIVATE_NAME}
# nbgrader's gradebook and the students' work
gradebook.db
submitted/
autograded/
feedback/
# grading output, and what holds the grading seeds or students' work: the Gradescope zip (the overlay is inside),
# the students' own logs of Project C, downloaded submissions, the TA's comparison page
out/
reports/
grades/
autograder.zip
c-logs/
submissions/
compare.html
__pycache__/
.ipynb_checkpoints/
"""


def init_course(target: Path, source: Path | None = None) -> Path:
    """Make the course folder ``target`` (new, or an empty folder) from the course in ``source`` (the bundled one)."""
    source = source or paths.BUNDLED
    missing = [name for name in FILES + FOLDERS if not (source / name).exists()]
    if missing:
        raise KitError(f"the kit's bundled course in {source} is incomplete: expected {', '.join(FILES + FOLDERS)}, "
                       f"missing {', '.join(missing)} (reinstall the kit)")
    if target.exists() and not target.is_dir():
        raise KitError(f"expected a new or empty folder for the course, found a file at {target}")
    if target.is_dir() and any(target.iterdir()):
        found = ", ".join(sorted(p.name for p in target.iterdir())[:8])
        raise KitError(f"expected a new or empty folder for the course, found {target} holding {found}; "
                       "choose another folder (an existing course is used with --course DIR)")
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(source / name, target / name)
    for name in FOLDERS:
        shutil.copytree(source / name, target / name, ignore=LEFT_OUT, copy_function=shutil.copyfile)
    for path in target.rglob("*"):  # a read-only install location must not make a read-only course
        path.chmod(path.stat().st_mode | 0o200)
    (target / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    return target.resolve()
