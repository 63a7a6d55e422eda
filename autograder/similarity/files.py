"""The files the similarity report reads: a project folder's modules and notebooks' code cells, as text.

Notebooks are read as JSON (no Jupyter needed); IPython's magics and shell lines (``%...``, ``!...``) are blanked so
that the rest tokenizes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 2_000_000  # a larger file (a data dump saved as .py, a notebook full of images) is read no further
CODE_SUFFIXES = (".py", ".ipynb")
SKIPPED_PARTS = ("__pycache__", ".ipynb_checkpoints")
_MAGIC = re.compile(r"^\s*[%!]")


@dataclass
class CodeFile:
    """One file as the report shows it: its name inside the project folder and its text (a notebook's code cells)."""

    name: str
    text: str
    chunks: list[tuple[int, str]] = field(default_factory=list)  # (first line in ``text``, source) tokenized alone


def blank_magics(source: str) -> str:
    """A notebook cell with IPython's ``%magic`` and ``!shell`` lines blanked (line numbers kept)."""
    return "".join("\n" if _MAGIC.match(line) else line for line in source.splitlines(keepends=True))


def read_code_file(path: Path, name: str) -> CodeFile | None:
    """The code of a .py file or of a notebook's code cells; None for a file that cannot be read as either."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    text = raw[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if path.suffix == ".ipynb":
        return notebook_code(text, name)
    return CodeFile(name, text, [(1, text)])


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def notebook_code(text: str, name: str, transform=None) -> CodeFile | None:
    """A notebook's code cells as one text, each under a ``# In[n]`` line and tokenized on its own."""
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return None
    shown, chunks, line = [], [], 1
    for number, cell in enumerate(c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"):
        source = _cell_source(cell)
        if transform:
            source = transform(source)
        if not source.endswith("\n"):
            source += "\n"
        shown.append(f"# In[{number + 1}]\n{source}")
        chunks.append((line + 1, blank_magics(source)))
        line += 1 + source.count("\n")
    return CodeFile(name, "".join(shown), chunks)


def code_files(folder: Path) -> list[CodeFile]:
    """Every .py file and notebook in a project folder (its subfolders too), in name order."""
    found = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*")):
        if path.suffix not in CODE_SUFFIXES or any(part in SKIPPED_PARTS for part in path.parts):
            continue
        if path.is_symlink() or not path.is_file():
            continue
        code = read_code_file(path, path.relative_to(folder).as_posix())
        if code is not None:
            found.append(code)
    return found
