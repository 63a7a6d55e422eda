"""The layout rules of the grader and the students' checker, checked on the source: projects are siblings that share
only ``_shared``, the core names no project, neither does the checker (each project's public half lives in its own
folder), a public half imports nothing of the grader, and no module grows past what one person can hold in mind."""

import ast
import re
from pathlib import Path

import pytest

from autograder import paths
from autograder.projects import PROJECTS

PROJECTS_DIR = paths.PACKAGE / "projects"
CHECKER = paths.KIT_ROOT / "capstone_check"
PACKAGES = sorted(p.name for p in PROJECTS_DIR.iterdir() if (p / "__init__.py").is_file() and p.name != "_shared")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def project_packages_imported(path: Path) -> set[str]:
    prefix = "autograder.projects."
    return {name[len(prefix):].split(".")[0] for name in imported(path) if name.startswith(prefix)}


@pytest.mark.parametrize("package", PACKAGES)
def test_no_project_imports_another(package):
    found = {f"{module.name} imports {other}" for module in (PROJECTS_DIR / package).rglob("*.py")
             for other in project_packages_imported(module) if other not in (package, "_shared")}
    assert not found, sorted(found)


def test_shared_machinery_imports_no_project():
    found = {f"{module.relative_to(PROJECTS_DIR)} imports {other}"
             for module in (PROJECTS_DIR / "_shared").rglob("*.py")
             for other in project_packages_imported(module) if other != "_shared"}
    assert not found, sorted(found)


def test_the_core_names_no_project_package():
    core = [m for m in paths.PACKAGE.rglob("*.py") if PROJECTS_DIR not in m.parents]
    found = {f"{module.relative_to(paths.PACKAGE)} imports projects.{name}" for module in core
             for name in project_packages_imported(module)}
    assert not found, sorted(found)


def test_every_project_package_registers_a_project():
    assert len(PROJECTS) == len(PACKAGES), f"packages {PACKAGES}, projects {sorted(PROJECTS)}"


def test_no_module_of_the_grader_or_the_checker_is_over_300_lines():
    long = {str(m.relative_to(paths.KIT_ROOT)): n for package in (paths.PACKAGE, CHECKER) for m in package.rglob("*.py")
            if (n := len(m.read_text(encoding="utf-8").splitlines())) > 300}
    assert not long, long


def project_words() -> re.Pattern:
    """What names a project: its check ids, its folder, its package and its modules' file names, and "project A"."""
    words = set()
    for pid, project in PROJECTS.items():
        words |= set(project.checks) | {project.folder, PROJECTS.package(pid).rpartition(".")[2]}
        words |= {f"{module}.py" for module in project.modules}
    named = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
    return re.compile(rf"(?<![\w.])({named})(?!\w)|\b[Pp]roject ({'|'.join(PROJECTS)})\b")


def test_the_checker_names_no_project():
    """Each project's own code for the students' checker lives in its folder (``autograder/projects/<p>/public``,
    copied into the bundle); the checker serves any project the course registers, and says nothing of one."""
    words = project_words()
    found = {f"{path.relative_to(paths.KIT_ROOT)}:{number}: {match.group(0)}"
             for path in CHECKER.rglob("*.py")
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in words.finditer(line)}
    assert not found, sorted(found)


PUBLIC_MAY_IMPORT = ("capstone_check", "rlkit", "numpy")


def outside_imports(path: Path) -> set[str]:
    """What module ``path`` (of a public half) imports that is neither the checker, the given code, numpy, the standard
    library, nor (relatively) a public half: a relative import is named by the folder it reaches."""
    import sys

    bad = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            folder = path.parent.parents[node.level - 2] if node.level > 1 else path.parent
            target = folder.joinpath(*(node.module or "").split("."))
            if "public" not in target.relative_to(PROJECTS_DIR).parts:
                bad.add("." * node.level + (node.module or ",".join(alias.name for alias in node.names)))
            continue
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) else [])
        bad |= {name for name in names if name.split(".")[0] not in (*PUBLIC_MAY_IMPORT, *sys.stdlib_module_names)}
    return bad


def test_a_public_half_imports_only_the_checker_the_given_code_and_public_halves():
    """What the students' bundle copies of each project runs there alone: it reaches nothing of the grader."""
    halves = sorted(PROJECTS_DIR.glob("*/public/*.py"))
    assert {path.parent.parent.name for path in halves} >= {"_shared"}
    found = {str(path.relative_to(PROJECTS_DIR)): bad for path in halves if (bad := outside_imports(path))}
    assert not found, found


def test_an_import_of_the_grader_from_a_public_half_is_found(tmp_path, monkeypatch):
    half = tmp_path / "p" / "public"
    half.mkdir(parents=True)
    monkeypatch.setattr(f"{__name__}.PROJECTS_DIR", tmp_path)
    (half / "a.py").write_text("import numpy\nfrom . import b\nfrom ..._shared.public import c\n")
    (half / "b.py").write_text("from autograder.projects import PROJECTS\nfrom .. import oracle\n")
    assert outside_imports(half / "a.py") == set()
    assert outside_imports(half / "b.py") == {"autograder.projects", "..oracle"}


def test_a_name_of_a_project_is_found():
    words = project_words()
    assert words.search('"B.table" in rows') and words.search("see ppo.py") and words.search("Project C's logs")
    assert not words.search("details: dict") and not words.search("project folder")


def function_bodies(root: Path, least_lines: int = 4) -> dict[str, list[str]]:
    """Body (its syntax tree, docstring left out) -> where, of every function of ``root`` whose body spans at least
    ``least_lines`` lines."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
            if body and body[-1].end_lineno - body[0].lineno + 1 >= least_lines:
                key = ast.dump(ast.Module(body=body, type_ignores=[]))
                found.setdefault(key, []).append(f"{path.relative_to(root.parent)}:{fn.name}")
    return found


def test_no_function_body_is_written_both_in_the_grader_and_in_the_checker():
    """A rule both sides need lives once, in the checker's packages, and the grader imports it: a body written twice
    drifts."""
    grader, checker = function_bodies(paths.PACKAGE), function_bodies(paths.KIT_ROOT / "capstone_check")
    twice = [(grader[body], checker[body]) for body in grader.keys() & checker.keys()]
    assert not twice, twice


def test_a_body_written_twice_is_found(tmp_path):
    source = "def f(x):\n    '''doc'''\n    y = x + 1\n    y *= 2\n    y -= 3\n    return y\n"
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(source.replace("f(", f"{name}("))
    (tmp_path / "c.py").write_text(source.replace("y -= 3", "y -= 4"))
    assert sorted(map(sorted, function_bodies(tmp_path).values())) == [
        [f"{tmp_path.name}/a.py:a", f"{tmp_path.name}/b.py:b"], [f"{tmp_path.name}/c.py:f"]]
