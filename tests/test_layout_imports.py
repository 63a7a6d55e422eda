"""The kit's imports run one way, down: no module imports one that (through others) imports it back, and no module
below the grader's CLI imports it. The graph is read from the source of every package of the kit (``ROOTS``), imports
inside functions included, so a lazy import cannot hide a circle, and imports by name (``import_module``) included
wherever the name can be read from the call (a constant, or ``f"{__name__}.{...}"``: any module of this package).

Its layers are derived from the tree, not declared: each module of a root folder, and each package in it, is a unit
(``autograder.config``, ``autograder.projects``, ``capstone_check.calls``, ``benchmarks.grade``); a unit's layer
is how far it stands above the units it imports. No import of one unit by another closes a circle, among the root
folders or among the units of one depth (where a circle could pass between units though no module imports itself
back), and no such import is excused: a checker that reaches the full kit does so by an entry point, and a project's
own command is handed how to load the course rather than importing the loader."""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest


from autograder import paths

ROOTS = ("autograder", "capstone_check", "docs_build", "benchmarks")
CLI = "autograder.cli"
ENTRY_POINTS = {"autograder.__main__"}  # ``python -m autograder``: the one module above the CLI
IMPORTS_BY_NAME = {  # a module whose import by name the source cannot name -> the modules it may import that way
    "autograder.projects._shared.audit_process": ("autograder.projects.*.*", "the replay function its request names"),
    "autograder.student_kit": ("autograder.projects.*.student_kit", "a project's student_kit module (and the module "
                               "of a checker's function that module names, which it has already imported)"),
    "autograder.cli": ("autograder.projects.*.command", "a project's own commands, named by its ``Project``"),
    "autograder.student_kit.mistakes": ("autograder.projects.*.mistakes", "a project's catalogue of known mistakes"),
    "capstone_check.child": ("capstone_check.calls capstone_check.project_checks.*", "in a check's child, the "
                             "function its row names: the checker's, or a project's public half in the bundle"),
}


def module_name(path: Path) -> str:
    """``autograder/report/html.py`` -> ``autograder.report.html``; a package is its ``__init__``."""
    parts = path.relative_to(paths.KIT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for root in ROOTS for path in sorted((paths.KIT_ROOT / root).rglob("*.py"))}


def _known(name: str) -> str | None:
    """The kit's module that importing ``name`` runs: itself, or the package it is a name of."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _resolved(name: str, module: str) -> str:
    """A bare name a script of a folder without ``__init__`` imports (its own folder is on its path): its sibling."""
    sibling = f"{module.rpartition('.')[0]}.{name}"
    folder_is_package = (MODULES[module].parent / "__init__.py").is_file()
    return sibling if not folder_is_package and _known(sibling) == sibling else name


def _by_name(node: ast.AST, module: str, tree: ast.AST) -> list[str]:
    """What an ``import_module(...)`` call names: a constant, or ``f"{__name__}.{...}"`` (every module directly in
    this package, written ``package.*``), given in the call or through a name the module assigns it to."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
            in ("import_module", "__import__") and node.args):
        return []
    arg = node.args[0]
    if isinstance(arg, ast.Name):
        arg = next((found.value for found in ast.walk(tree) if isinstance(found, ast.Assign)
                    and any(getattr(target, "id", None) == arg.id for target in found.targets)), arg)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if (isinstance(arg, ast.JoinedStr) and len(arg.values) >= 2 and getattr(arg.values[0].value, "id", None)
            == "__name__" and getattr(arg.values[1], "value", None) == "."):
        return [f"{_package_of(module)}.*"]
    return []


def _targets(node: ast.AST, module: str, tree: ast.AST) -> list[str]:
    """The names an import asks for: ``import a.b`` -> a.b; ``from a import b`` -> a.b and a (b may be a module or a
    name in a); relative imports resolved against ``module``'s package; an import by name as ``_by_name`` reads it."""
    if isinstance(node, ast.Import):
        return [_resolved(alias.name, module) for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return _by_name(node, module, tree)
    base = node.module or ""
    if node.level:
        package = _package_of(module).split(".")
        base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
    else:
        base = _resolved(base, module)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _matching(pattern: str) -> set[str]:
    """The modules a pattern names, ``*`` standing for one part of a name."""
    parts = pattern.split(".")
    return {name for name in MODULES if len(name.split(".")) == len(parts)
            and all(want in ("*", got) for want, got in zip(parts, name.split(".")))}


def imports_of(module: str) -> set[str]:
    """The kit's modules that ``module`` imports, anywhere in it and by name, with the packages Python runs on the way
    (a package's ``__init__`` runs before any of its modules), except the packages ``module`` is itself inside."""
    named = [pattern for pattern in IMPORTS_BY_NAME.get(module, ("",))[0].split()]
    found = set()
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        for name in _targets(node, module, tree):
            targets = _matching(name) if "*" in name else {_known(name)} - {None}
            for target in targets - {module}:
                found |= {target} | (_ancestors(target) & set(MODULES))
    for target in set().union(*map(_matching, named)) - {module}:
        found |= {target} | (_ancestors(target) & set(MODULES))
    return found - _ancestors(module) - {module}


@cache
def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports, over every module of the kit's packages."""
    return {module: imports_of(module) for module in MODULES}


def unit_of(module: str, depth: int = 2) -> str:
    """The unit a module belongs to: its root folder (depth 1), or the module or package directly in it (depth 2)."""
    return ".".join(module.split(".")[:depth])


def unit_graph(graph: dict[str, set[str]], depth: int = 2) -> dict[str, set[str]]:
    """Unit -> the other units its modules import."""
    units = {}
    for module, imported in graph.items():
        units.setdefault(unit_of(module, depth), set()).update(unit_of(target, depth) for target in imported)
    return {unit: imported - {unit} for unit, imported in units.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, without recursion): every set
    of nodes that import each other round in a circle."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layers(graph: dict[str, set[str]]) -> dict[str, int]:
    """Unit -> its layer in a graph without circles: 0 for a unit that imports no other, else one above the highest
    it imports."""
    layer = {}

    def of(unit):
        if unit not in layer:
            layer[unit] = 1 + max((of(target) for target in graph.get(unit, ())), default=-1)
        return layer[unit]

    for unit in graph:
        of(unit)
    return layer


def test_the_import_graph_has_no_circle():
    assert circles(import_graph()) == []


@pytest.mark.parametrize("depth", [1, 2])
def test_the_units_import_downward_with_no_exception(depth):
    """The root folders (depth 1) and the units in them (depth 2) import round in no circle, and none is excused."""
    assert circles(unit_graph(import_graph(), depth)) == []


def test_the_layers_come_from_the_tree():
    """Every unit has a layer, and an import always points to a lower one."""
    units = unit_graph(import_graph())
    layer = layers(units)
    assert set(layer) >= {unit_of(module) for module in MODULES}
    assert all(layer[target] < layer[unit] for unit, targets in units.items() for target in targets)


def test_a_circle_among_units_is_found_where_no_module_imports_itself_back():
    planted = {"a.config": {"a.paths"}, "a.paths": set(), "a.grading": {"a.config"}, "a.config.x": {"a.grading"}}
    assert circles(planted) == []
    assert circles(unit_graph(planted)) == [["a.config", "a.grading"]]


def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_an_import_by_name_is_followed():
    graph = import_graph()
    assert {"autograder.projects.a_ppo", "autograder.projects.d_grpo"} <= graph["autograder.projects"]
    assert "autograder.report.html" in graph["autograder.report"]


def test_nothing_below_the_cli_imports_it():
    """Nothing of the grader or the checker, that is: the docs' build and the benchmarks stand above the CLI."""
    below = {module for module, imported in import_graph().items() if CLI in imported
             and unit_of(module, 1) in ("autograder", "capstone_check")} - ENTRY_POINTS
    assert not below, sorted(below)


# The students' checker in two roles: its app (the command, its runner and the children it starts, the notebook's cell,
# the prediction of final grading) on top of a library (loading a student's folder, comparisons, the verdict, located
# statements, the collectors and judges of calls) that the grader imports too.
CHECKER_APP = ("capstone_check.__main__", "capstone_check.cli", "capstone_check.runner", "capstone_check.starts",
               "capstone_check.preload", "capstone_check.notebook", "capstone_check.prediction")


def test_the_checker_is_a_library_below_and_the_students_app_on_top():
    """No module of the grader or of the checker's library imports the app, and the app imports nothing of the grader:
    a rule both sides use lives in the library, once."""
    graph = import_graph()
    assert set(CHECKER_APP) <= set(MODULES)
    below = {f"{module} imports {app}" for module, imported in graph.items() if module not in CHECKER_APP
             and unit_of(module, 1) in ("autograder", "capstone_check") for app in imported & set(CHECKER_APP)}
    assert not below, sorted(below)
    grader = {f"{app} imports {module}" for app in CHECKER_APP for module in graph[app]
              if unit_of(module, 1) == "autograder"}
    assert not grader, sorted(grader)


def test_every_import_by_name_is_followed_or_known():
    """An import by name whose target the call does not say is one of ``IMPORTS_BY_NAME``."""
    unread = set()
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
                    in ("import_module", "__import__") and not _by_name(node, module, tree)):
                unread.add(module)
    assert unread <= set(IMPORTS_BY_NAME), sorted(unread - set(IMPORTS_BY_NAME))


def test_importing_the_cli_discovers_no_project():
    """Projects are found when a command runs, not when the CLI is imported."""
    code = ("import sys, autograder.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('autograder.projects.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
