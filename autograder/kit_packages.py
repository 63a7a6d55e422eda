"""The kit's own top-level packages that grading imports: what the Gradescope zip carries and what a check's child
has staged for it.

They are read from the code, never listed by hand: every module of ``autograder`` is read (the imports inside its
functions too), each other package of the kit that one imports is read the same way, and so on until nothing new is
reached. Where the kit is installed, a package of the kit is one its distribution lists as its own (numpy beside the
kit in site-packages is not), found where Python imports it from: a copy of ``autograder`` elsewhere (a course that
adds a project to a copy of the code) still reaches the installed checker. Where the kit is not installed (Gradescope
unpacks it into ``source/`` and puts that on the path), every package folder beside ``autograder`` is one. Imports by
name (``import_module``) stay within packages already read, so whole packages cover them.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from autograder import paths

DISTRIBUTION = "rl-capstone-kit"
FIRST = "autograder"


def _imported_tops(package: Path) -> set[str]:
    """The top-level names that the modules of ``package`` import absolutely, wherever in a module they do."""
    tops = set()
    for module in sorted(package.rglob("*.py")):
        relative = module.relative_to(package).parts
        if "__pycache__" in relative or relative[0] == "bundled":
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"), str(module))):
            if isinstance(node, ast.Import):
                tops.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops.add(node.module.partition(".")[0])
    return tops


def _installed_tops() -> set[str] | None:
    """The top-level names the installed kit's distribution owns; None where the kit is not installed."""
    try:
        kit = distribution(DISTRIBUTION)
    except PackageNotFoundError:
        return None
    listed = kit.read_text("top_level.txt")
    if listed is not None:
        return set(listed.split())
    return {Path(file).parts[0] for file in kit.files or []}


def _folder(name: str, owned: set[str] | None) -> Path | None:
    """Where the kit's package ``name`` is imported from; None where ``name`` is not one of the kit's packages."""
    if owned is None:
        beside = paths.KIT_ROOT / name
        return beside if (beside / "__init__.py").is_file() else None
    if name not in owned:
        return None
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def grading_packages() -> tuple[Path, ...]:
    """The folders of the kit's packages that grading imports, ``autograder`` first, then by name."""
    owned = _installed_tops()
    reached, unread = {FIRST: paths.PACKAGE}, [paths.PACKAGE]
    while unread:
        for name in _imported_tops(unread.pop()):
            if name not in reached and (folder := _folder(name, owned)) is not None:
                reached[name] = folder
                unread.append(folder)
    return tuple(reached[name] for name in [FIRST, *sorted(set(reached) - {FIRST})])
