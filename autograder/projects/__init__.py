"""The registry of capstone projects: id -> Project (folder, modules, checks, plots, specifics).

Every package in this folder that defines ``PROJECT`` is a project (packages whose name starts with ``_`` hold shared
machinery): adding a project is adding its folder (docs/adding-a-project.md). Projects are listed by id.
"""

from importlib import import_module
from pkgutil import iter_modules


def _discover() -> dict:
    found = {}
    for info in iter_modules(__path__):
        if info.ispkg and not info.name.startswith("_"):
            project = getattr(import_module(f"{__name__}.{info.name}"), "PROJECT", None)
            if project is not None:
                if project.id in found:
                    raise RuntimeError(f"two project packages claim the id {project.id!r}: "
                                       f"{found[project.id].folder} and {project.folder}")
                found[project.id] = project
    return dict(sorted(found.items()))


PROJECTS = _discover()
