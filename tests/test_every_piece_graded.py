"""Every function a student writes (a solution region of the reference) is graded: some check of its project calls it
by name, or a function a check calls calls it. A piece nothing reaches would keep full marks whatever it returned
(as A's `explained_variance` once did). Read from the code as text: the names the project's grading code holds as
strings (`student.fn("gae")`, a recorded call's `"fn"`, a table of pieces), and the calls inside the solutions.
A module that copies another project's (B's `ppo.py` is A's) is graded where it is written."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder import paths
from autograder.projects import PROJECTS

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "### BEGIN SOLUTION"


def functions(source: str) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)}


def written_by_students(source: str) -> list[str]:
    return [name for name, node in functions(source).items() if BEGIN in (ast.get_source_segment(source, node) or "")]


def named_by_grading(files: list[Path]) -> set[str]:
    """Every string the grading code holds: a piece it calls is among them."""
    return {node.value for path in files for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def reached(sources: list[str], named: set[str]) -> set[str]:
    """The functions of ``sources`` that grading calls: those it names, and those they call, and so on."""
    defined = {name: node for source in sources for name, node in functions(source).items()}
    found, todo = set(), [name for name in defined if name in named]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        todo += [call.func.id for call in ast.walk(defined[name]) if isinstance(call, ast.Call)
                 and isinstance(call.func, ast.Name) and call.func.id in defined]
    return found


def grading_code(pid: str) -> list[Path]:
    """The project's checks and the students' checker's code of it; its catalogue of known mistakes is left out (it
    names a piece without calling it)."""
    own = next(p for p in (paths.PACKAGE / "projects").iterdir() if p.is_dir() and p.name.startswith(f"{pid.lower()}_"))
    return [p for p in own.rglob("*.py") if p.name != "mistakes.py"] + sorted(
        (ROOT / "capstone_check" / "kinds").glob(f"{pid.lower()}_*.py"))


def unreached(pid: str) -> list[str]:
    project = PROJECTS[pid]
    folder = paths.SOLUTIONS / project.folder
    sources = {m: (folder / f"{m}.py").read_text(encoding="utf-8") for m in project.modules
               if f"{m}.py" not in project.copies}
    found = reached(list(sources.values()), named_by_grading(grading_code(pid)))
    return [f"{m}.{name}" for m, source in sources.items() for name in written_by_students(source) if name not in found]


@pytest.mark.parametrize("pid", [pid for pid in PROJECTS if (paths.SOLUTIONS / PROJECTS[pid].folder).is_dir()])
def test_every_function_a_student_writes_is_called_by_a_check(pid):
    assert unreached(pid) == []


def test_a_function_no_check_names_or_reaches_is_found():
    source = "def piece(x):\n    ### BEGIN SOLUTION\n    return helper(x)\n    ### END SOLUTION\n\n\n" \
             "def helper(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n\n\n" \
             "def forgotten(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    assert written_by_students(source) == ["piece", "helper", "forgotten"]
    assert reached([source], {"piece", "some message"}) == {"piece", "helper"}
