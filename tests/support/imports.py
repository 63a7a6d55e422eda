"""A project folder's modules imported for a test, then forgotten, so the next test imports its own copy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def forgotten_after(modules: list[str] | tuple[str, ...]) -> Iterator[None]:
    """Inside: ``modules`` are imported afresh (whatever loads them, the grader's ``Student`` or the checker's, which
    put the folder first on the module search path). After: those modules and that search path are as before."""
    search_path = list(sys.path)
    for name in modules:
        sys.modules.pop(name, None)
    try:
        yield
    finally:
        for name in modules:
            sys.modules.pop(name, None)
        sys.path[:] = search_path
