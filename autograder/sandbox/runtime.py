"""The code a check's child imports: a copy of the kit's runtime packages, staged once per grading run.

The child imports ``autograder``, ``capstone_check`` (whose ``student`` module the checks use) and ``rlkit`` from this
copy, never from the kit's own folder, so neither sys.path, the environment, the working directory nor
``autograder.__file__`` leads to ``solutions/`` or the private overlay.
The copy leaves out every project's ``oracle.py`` (the reference implementations the judges compare with): in the
child an oracle is a stub whose functions refuse to run, so student code cannot call or print the reference.
A check's ``collect`` therefore must not use its oracle; grading the reference in the tests would fail if one did.
The copy is compiled to bytecode once, after the stubs are written: a child may not write into it, and would otherwise
compile the kit's modules again each time it starts.
"""

from __future__ import annotations

import compileall
import contextlib
import shutil
import tempfile
from pathlib import Path

import autograder
import capstone_check
import rlkit

ORACLE_STUB = '''"""The reference implementations are not available to code running in the sandbox."""


def __getattr__(name):
    def unavailable(*args, **kwargs):
        raise RuntimeError("the reference implementation is not available in the sandbox")
    return unavailable
'''


def _left_out(package: Path):
    """What the copy leaves out: caches, the oracles, and an installed kit's bundled course (its solutions)."""
    def ignore(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == package
        return [n for n in names if n in ("__pycache__", "oracle.py") or (top and n == "bundled")]
    return ignore


@contextlib.contextmanager
def staged():
    """A temporary folder holding ``autograder/`` (oracles stubbed), ``capstone_check/`` and ``rlkit/``, readable by
    any uid."""
    with tempfile.TemporaryDirectory(prefix="autograder-runtime-") as folder:
        root = Path(folder)
        for package in (autograder, capstone_check, rlkit):
            source = Path(package.__file__).parent
            shutil.copytree(source, root / source.name, ignore=_left_out(source))
        for oracle in Path(autograder.__file__).parent.rglob("oracle.py"):
            stub = root / "autograder" / oracle.relative_to(Path(autograder.__file__).parent)
            stub.write_text(ORACLE_STUB)
        compileall.compile_dir(root, quiet=2)
        root.chmod(0o755)
        for path in root.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield root
