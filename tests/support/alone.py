"""Environments that hold only what an artifact installs: a new venv (never the test session's Python) whose
third-party distributions are the ones a requirement list names, and theirs, taken from the test environment without
reaching an index.

Each distribution's folders are linked in file by file (hard links; copies where the two folders lie on different
file systems), so they lie inside the new venv: bubblewrap, which mounts the grader's Python environment and nothing
else, then shows student code the same packages the grader imports. The kit itself is never linked in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

KIT_DISTRIBUTION = "rl-capstone-kit"


def required_distributions(requirements: list[str], extras: tuple[str, ...] = ()) -> set[str]:
    """The distributions ``requirements`` name (lines as in requirements.txt or a package's metadata, markers
    evaluated with ``extras`` for these lines only) and every distribution they need, without extras, as installed
    here."""
    wanted = [Requirement(line) for line in requirements]
    wanted = [r.name for r in wanted if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in
                                                                  (*extras, ""))]
    seen = set()
    while wanted:
        dist = metadata.distribution(wanted.pop())
        key = dist.metadata["Name"].lower()
        if key in seen:
            continue
        seen.add(key)
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement.name)
    return seen


def kit_requirements(extras: tuple[str, ...] = ()) -> set[str]:
    """What ``pip install .`` (with ``extras``) installs besides the kit, as installed here."""
    return required_distributions(metadata.requires(KIT_DISTRIBUTION) or [], extras) - {KIT_DISTRIBUTION}


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def link_distributions(names: set[str], site: Path) -> None:
    """Each distribution's top-level folders and files (its code and its metadata) put into ``site``."""
    for name in sorted(names - {KIT_DISTRIBUTION}):
        dist = metadata.distribution(name)
        for top in sorted({f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}):
            source = Path(dist.locate_file(top))
            if (site / top).exists() or not source.exists():
                continue
            if source.is_dir():
                shutil.copytree(source, site / top, copy_function=_link_or_copy,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                _link_or_copy(str(source), str(site / top))


def reachable_folder(prefix: str) -> Path:
    """A new folder every uid may pass through (pytest's own are its owner's alone), so the sandbox's uids can run a
    venv made in it, as they run the image's /autograder/venv."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


def new_venv(base: Path, distributions: set[str]) -> tuple[Path, Path]:
    """A venv in ``base``/venv, made from the base interpreter without pip, holding ``distributions``: its Python and
    its site-packages."""
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    link_distributions(distributions, site)
    return python, site
