"""The registry of capstone projects: id -> Project (folder, modules, checks, plots, specifics).

Every package in this folder that defines ``PROJECT`` is a project (packages whose name starts with ``_`` hold shared
machinery): adding a project is adding its folder (docs/adding-a-project.md). Projects are listed by id.

The registry imports the project packages on first use, not when this package is imported: a check's child and an
audit process import only the package they need (``project_in``), which saves every such process the others' imports.
"""

from collections.abc import MutableMapping
from importlib import import_module
from pkgutil import iter_modules


def project_in(package: str):
    """The ``PROJECT`` of one project package, e.g. ``autograder.projects.a_ppo``, importing nothing else."""
    if not package.startswith(f"{__name__}.") or "." in package[len(__name__) + 1:]:
        raise ValueError(f"{package!r} is not a project package")
    return import_module(package).PROJECT


class _Registry(MutableMapping):
    """Project id -> Project, discovered once, on first use; an entry may be replaced (tests put a changed project
    in place of a registered one)."""

    def __init__(self):
        self._found: dict | None = None
        self._packages: dict[str, str] = {}

    def _discover(self) -> dict:
        if self._found is None:
            found = {}
            for info in iter_modules(__path__):
                if info.ispkg and not info.name.startswith("_"):
                    package = f"{__name__}.{info.name}"
                    project = getattr(import_module(package), "PROJECT", None)
                    if project is not None:
                        if project.id in found:
                            raise RuntimeError(f"two project packages claim the id {project.id!r}: "
                                               f"{found[project.id].folder} and {project.folder}")
                        found[project.id] = project
                        self._packages[project.id] = package
            self._found = dict(sorted(found.items()))
        return self._found

    def package(self, pid: str) -> str:
        """The package that registers project ``pid`` (what a child imports with ``project_in``)."""
        self._discover()
        return self._packages[pid]

    def __getitem__(self, pid):
        return self._discover()[pid]

    def __setitem__(self, pid, project):
        self._discover()[pid] = project

    def __delitem__(self, pid):
        del self._discover()[pid]

    def __iter__(self):
        return iter(self._discover())

    def __len__(self):
        return len(self._discover())

    def __repr__(self):
        return f"PROJECTS({', '.join(self._discover())})"


PROJECTS = _Registry()
