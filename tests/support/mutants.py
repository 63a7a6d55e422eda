"""Every project's planted bugs and correct variants, gathered from the projects' own test folders.

Each folder of ``tests/projects/`` may hold a ``mutants.py`` with ``MUTANTS`` (planted bugs, each naming the check
that must catch it) and ``EQUIVALENT`` (correct implementations written differently, which must keep full marks;
optional). They are found here, so a new project's folder brings its own and no shared list changes.
"""

from importlib import import_module
from pathlib import Path
from types import ModuleType

from tests.support.planted import Equivalent, Mutant

PROJECT_TESTS = Path(__file__).resolve().parent.parent / "projects"


def project_modules() -> list[ModuleType]:
    """Each project's planted-bug module, in the order of the projects' folder names."""
    return [import_module(f"tests.projects.{folder.name}.mutants")
            for folder in sorted(PROJECT_TESTS.iterdir()) if (folder / "mutants.py").is_file()]


MODULES = project_modules()
ALL: list[Mutant] = [mutant for module in MODULES for mutant in module.MUTANTS]
EQUIVALENT: list[Equivalent] = [variant for module in MODULES for variant in getattr(module, "EQUIVALENT", [])]
