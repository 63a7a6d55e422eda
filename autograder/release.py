"""``autograder release``: regenerate the student stubs in assignments/ from the reference in solutions/.

Notebooks go through nbgrader's own ``generate_assignment`` (solution cells cleared, checksums and cell locks set),
so the released notebooks are exactly what an nbgrader course expects, and each project is registered in the
course's gradebook, so ``nbgrader autograde P --create`` works right after a release. nbgrader copies other files
verbatim, so the solution regions of ``.py`` modules are stripped here, between the same markers nbgrader uses.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.kit import KitError
from autograder.nbcells import project_for_folder, sync_check_cells
from autograder.projects import PROJECTS

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = ["# YOUR CODE HERE", "raise NotImplementedError()"]  # nbgrader's own stub, so both kinds of file agree


class ReleaseError(KitError):
    """A solution file whose markers do not pair up, or an nbgrader failure; the message says where."""


def strip_solutions(source: str, name: str = "<source>") -> str:
    """Replace each region from BEGIN SOLUTION to END SOLUTION (markers included) with the stub, indented alike."""
    out, inside, indent = [], None, ""
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise ReleaseError(f"{name}, line {number}: {BEGIN} inside the region opened at line {inside}")
            inside, indent = number, re.match(r"\s*", line).group()
            out += [f"{indent}{stub}\n" for stub in STUB]
        elif marker == END:
            if not inside:
                raise ReleaseError(f"{name}, line {number}: {END} without a {BEGIN} before it")
            inside = None
        elif not inside:
            out.append(line)
    if inside:
        raise ReleaseError(f"{name}, line {inside}: {BEGIN} is never closed by {END}")
    return "".join(out)


def needs_nbgrader(project: str) -> None:
    """A ReleaseError saying which extra to install, where nbgrader (and its nbformat) are not: a bare install of the
    kit grades, and only releasing a project's notebook needs them."""
    from importlib.util import find_spec

    missing = [name for name in ("nbformat", "nbgrader") if find_spec(name) is None]
    if missing:
        raise ReleaseError(f"releasing {project}'s notebook needs the nbgrader extra ({', '.join(missing)} not "
                           "installed here): pip install 'rl-capstone-kit[nbgrader]'")


def _generate_with_nbgrader(solutions: Path, project: str, workdir: Path, gradebook: Path | None) -> Path:
    """Run nbgrader generate_assignment for one project into ``workdir``, registering it in the course's gradebook
    (``gradebook``, else where the course's nbgrader_config.py says, by default gradebook.db in the course folder)
    so that ``nbgrader autograde`` knows it; return the released folder."""
    release_dir = workdir / "release"
    command = [sys.executable, "-m", "nbgrader", "generate_assignment", project, "--force", "--log-level=WARN",
               f"--CourseDirectory.root={solutions.parent}", f"--CourseDirectory.source_directory={solutions.name}",
               f"--CourseDirectory.release_directory={release_dir}"]
    if gradebook is not None:
        command.append(f"--CourseDirectory.db_url=sqlite:///{gradebook.resolve()}")
    # nbgrader shells out to `alembic`, which lives beside this interpreter even when that is not on PATH
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, cwd=solutions.parent, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(f"nbgrader generate_assignment {project} failed:\n{done.stdout}{done.stderr}")
    return release_dir / project


def sync_notebook_checks(source: Path, course=None) -> None:
    """Bring the project notebook's autograded cells in line with course.yml (see ``autograder.nbcells``)."""
    project_id, notebook = project_for_folder(source.name), source / f"{source.name}.ipynb"
    if project_id is None or not notebook.exists():
        return
    needs_nbgrader(source.name)
    course = course or load_course(source.parent.parent / paths.COURSE_NAME, private=False)
    if project_id in course.projects:
        sync_check_cells(notebook, project_id, course)


# what the kit's READMEs and modules say of its command, as a student with the students' kit runs it
STUDENTS_COMMAND = [("autograder check", "capstone-check")]


def for_students(text: str) -> str:
    """``text`` naming the students' checker where it names the kit's (students never have the kit)."""
    for old, new in STUDENTS_COMMAND:
        text = text.replace(old, new)
    return text


def made_by_students(folder: str) -> tuple[str, ...]:
    """Files the reference's run leaves in ``folder`` that each student makes from their own: never released."""
    project = PROJECTS.get(project_for_folder(folder) or "")
    return project.made_by_students if project else ()


def copies() -> dict[str, str]:
    """``"<folder>/<file>" -> "<folder>/<file>"``: files a project carries as a copy of another project's (B builds on
    the student's own A). Real files, not links, so that copying a project folder never leaves one dangling; release
    keeps each equal to its original."""
    return {f"{p.folder}/{name}": original for p in PROJECTS.values() for name, original in p.copies.items()}


def _sync_copies(solutions: Path, project: str) -> None:
    for copy, original in copies().items():
        if copy.startswith(project + "/") and (solutions / original).is_file():
            target = solutions / copy
            if target.is_symlink():
                target.unlink()
            if not target.is_file() or target.read_bytes() != (solutions / original).read_bytes():
                shutil.copyfile(solutions / original, target)


def release_project(project: str, solutions: Path, assignments: Path, course=None,
                    gradebook: Path | None = None) -> Path:
    """Regenerate ``assignments/<project>`` from ``solutions/<project>`` and register it in nbgrader's gradebook
    (``gradebook``, default: the course's); return the released folder."""
    source = solutions / project
    if not source.is_dir():
        raise ReleaseError(f"expected a reference folder {source}, found none")
    sync_notebook_checks(source, course)
    _sync_copies(solutions, project)
    target = assignments / project
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", *made_by_students(project))
    with tempfile.TemporaryDirectory(prefix="release-") as workdir:
        has_notebooks = any(source.glob("*.ipynb"))  # nbgrader refuses a folder without one
        released = _generate_with_nbgrader(solutions, project, Path(workdir), gradebook) if has_notebooks else source
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(released, target, ignore=ignore)
    for module in source.rglob("*.py"):
        relative = module.relative_to(source)
        if "__pycache__" not in relative.parts:
            text = strip_solutions(module.read_text(encoding="utf-8"), str(relative))
            (target / relative).write_text(for_students(text), encoding="utf-8")
    for page in target.rglob("*.md"):
        page.write_text(for_students(page.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def release(projects: list[str] | None = None, solutions: Path | None = None,
            assignments: Path | None = None, gradebook: Path | None = None) -> list[Path]:
    """Release the given project folders (every folder of solutions/ by default) of the course folder at or above the
    working directory (``solutions`` and ``assignments`` name other folders)."""
    if solutions is None or assignments is None:
        try:
            root = paths.course_root()
        except paths.CourseNotFound as exc:
            raise ReleaseError(str(exc)) from None
        solutions, assignments = solutions or root / "solutions", assignments or root / "assignments"
    if not solutions.is_dir():
        raise ReleaseError(f"expected the reference solutions in {solutions}, found no such folder")
    folders = projects or sorted(p.name for p in solutions.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [release_project(folder, solutions, assignments, gradebook=gradebook) for folder in folders]
