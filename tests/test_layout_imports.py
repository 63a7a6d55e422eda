"""The grader's imports run one way, down from the CLI: no module imports one that (through others) imports it back,
and no module below the CLI imports the CLI. The graph is read from the source, imports inside functions included,
so a lazy import cannot hide a circle.

Its folders are layers (``LAYERS``, bottom to top, as docs/architecture.md draws them): a module imports from its own
layer and the layers below. An import up a layer is a back-arrow; the few there are are named in ``BACK_ARROWS`` with
the reason each stays, and there are at most three.

The one import that runs up is the project registry's: ``autograder.projects`` imports each project package by name
when first asked, and what asks it for a project's module imports that by name too. The source cannot show imports by
name, so each module that makes one is listed in ``IMPORTS_BY_NAME`` with what it imports."""

import ast
import subprocess
import sys
from pathlib import Path

from autograder import paths

CLI = "autograder.cli"
ENTRY_POINTS = {"autograder.__main__"}  # ``python -m autograder``: the one module above the CLI
IMPORTS_BY_NAME = {
    "autograder.projects": "the registry: each project package, when first asked (the one arrow up)",
    "autograder.student_kit": "a project's student_kit module, found through the registry",
    "autograder.student_kit.mistakes": "a project's catalogue of known mistakes, found through the registry",
    "autograder.projects._shared.audits": "in an audit's own process, the replay function its check names",
    "autograder.report": "its own modules, when one of their names is first used (PEP 562)",
}


LAYERS = [  # bottom to top; a module of autograder/ itself is a command unless named here
    ("core", {"autograder", "autograder.paths", "autograder.status", "autograder.config", "autograder.checks",
              "autograder.student", "autograder.proctree", "autograder.submission_budget", "autograder.cascade",
              "autograder.comparisons", "autograder.findings", "autograder.project", "autograder.grading_run",
              "autograder.command_common", "autograder.progress"}),
    ("report", {"autograder.report"}),
    ("projects", {"autograder.projects"}),
    ("sandbox", {"autograder.sandbox"}),
    ("course", {"autograder.plan", "autograder.release", "autograder.nbcells", "autograder.kit"}),
    ("student_kit", {"autograder.student_kit"}),
    ("commands", set()),
    ("similarity", {"autograder.similarity"}),
    ("classroom", {"autograder.classroom"}),
    ("cli", {"autograder.cli", "autograder.__main__"}),
]
BACK_ARROWS = {  # (module, the layer above it that it imports) -> why it stays
    ("autograder.config", "projects"): "a course is checked against the projects' checks and bars when it is loaded",
}
MOST_BACK_ARROWS = 3


def layer_of(module: str) -> str:
    """The layer of ``module``: the first whose set holds it or a package it is inside; else a command."""
    for name, members in LAYERS:
        if any(module == member or module.startswith(f"{member}.") for member in members - {"autograder"}):
            return name
    return "core" if module == "autograder" else "commands"


def back_arrows(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """(module, the higher layer it imports) -> the modules of that layer it imports."""
    rank = {name: i for i, (name, _) in enumerate(LAYERS)}
    found = {}
    for module, imported in graph.items():
        for target in sorted(imported):
            if rank[layer_of(target)] > rank[layer_of(module)]:
                found.setdefault((module, layer_of(target)), []).append(target)
    return found


def module_name(path: Path) -> str:
    """``autograder/report/html.py`` -> ``autograder.report.html``; a package is its ``__init__``."""
    parts = path.relative_to(paths.KIT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(paths.PACKAGE.rglob("*.py"))}


def _known(name: str) -> str | None:
    """The grader's module that importing ``name`` runs: itself, or the package it is a name of."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _targets(node: ast.AST, module: str) -> list[str]:
    """The names an import statement asks for: ``import a.b`` -> a.b; ``from a import b`` -> a.b and a (b may be a
    module or a name in a); relative imports resolved against ``module``'s package."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = _package_of(module).split(".")
        base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def imports_of(module: str) -> set[str]:
    """The grader's modules that ``module`` imports, anywhere in it, with the packages Python runs on the way (a
    package's ``__init__`` runs before any of its modules), except the packages ``module`` is itself inside."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        for name in _targets(node, module):
            target = _known(name)
            if target is not None and target != module:
                found |= {target} | (_ancestors(target) & set(MODULES))
    return found - _ancestors(module) - {module}


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports, over every module of the ``autograder`` package."""
    return {module: imports_of(module) for module in MODULES}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion): every set
    of modules that import each other round in a circle."""
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
                    work.append((target, iter(sorted(graph[target]))))
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


def test_the_import_graph_has_no_circle():
    assert circles(import_graph()) == []


def test_the_layers_import_downward_but_for_the_named_back_arrows():
    found = back_arrows(import_graph())
    assert set(found) == set(BACK_ARROWS), {arrow: found.get(arrow) for arrow in set(found) ^ set(BACK_ARROWS)}
    assert len(BACK_ARROWS) <= MOST_BACK_ARROWS


def test_an_import_up_a_layer_is_found():
    planted = {"autograder.config": {"autograder.grading", "autograder.paths"}, "autograder.grading": set(),
               "autograder.paths": set(), "autograder.sandbox.runner": {"autograder.projects", "autograder.config"}}
    assert back_arrows(planted) == {("autograder.config", "commands"): ["autograder.grading"]}


def test_the_back_arrows_are_the_ones_the_architecture_names():
    drawn = (paths.KIT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert all(f"`{module}` → {layer}" in drawn for module, layer in BACK_ARROWS)


def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_nothing_below_the_cli_imports_it():
    below = {module for module, imported in import_graph().items() if CLI in imported} - ENTRY_POINTS
    assert not below, sorted(below)


def test_every_import_by_name_is_known():
    """An import by name (``import_module``) is invisible to the graph above: each is one of ``IMPORTS_BY_NAME``."""
    by_name = {module for module, path in MODULES.items()
               if any(call in path.read_text(encoding="utf-8") for call in ("import_module(", "__import__("))}
    assert by_name <= set(IMPORTS_BY_NAME), sorted(by_name - set(IMPORTS_BY_NAME))


def test_importing_the_cli_discovers_no_project():
    """Projects are found when a command runs, not when the CLI is imported."""
    code = ("import sys, autograder.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('autograder.projects.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
