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
    evaluated with ``extras`` for these lines only) and every distribution they need, with the extras each
    requirement names (nbconvert's ``bleach[css]`` brings tinycss2, as pip installs it), as installed here."""
    wanted = [Requirement(line) for line in requirements]
    wanted = [(r.name, tuple(r.extras)) for r in wanted
              if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in (*extras, ""))]
    seen, done = set(), set()  # distributions, and (distribution, extra) pairs whose requirements are followed
    while wanted:
        name, named = wanted.pop()
        dist = metadata.distribution(name)
        key = dist.metadata["Name"].lower()
        todo = [extra for extra in ("", *named) if (key, extra) not in done]
        seen.add(key)
        done.update((key, extra) for extra in todo)
        if not todo:
            continue
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in todo):
                wanted.append((requirement.name, tuple(requirement.extras)))
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


def install_the_rest(names: set[str], venv: Path, site: Path) -> None:
    """What pip puts into a venv besides the folders ``link_distributions`` links into its ``site``, for each
    distribution: the bytecode it compiles at install (linked: the sources are the same files, so it stays valid; the
    sandbox mounts the venv read-only, where every child would compile its imports again), its data files (a
    kernelspec, nbconvert's templates, Jupyter's configuration, under share/ and etc/), linked in at the same place in
    ``venv``, and its console scripts (nbgrader, alembic, dask), written anew to run the venv's Python: the test
    environment's own scripts name the test environment's Python."""
    scripts = venv / "bin"
    for name in sorted(names - {KIT_DISTRIBUTION}):
        dist = metadata.distribution(name)
        for pyc, target in _bytecode(dist, site):
            if target.parent.parent.is_dir() and not target.exists():
                target.parent.mkdir(exist_ok=True)
                _link_or_copy(str(pyc), str(target))
        for file in dist.files or []:
            target = Path(os.path.normpath(site / file))
            if file.parts[0] != ".." or not target.is_relative_to(venv) or target.is_relative_to(scripts):
                continue
            source = Path(dist.locate_file(file))
            if source.is_file() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(str(source), str(target))
        for entry in dist.entry_points:
            script = scripts / entry.name
            if entry.group in ("console_scripts", "gui_scripts") and not script.exists():
                script.write_text(f"#!{scripts / 'python'}\nimport sys\nfrom {entry.module} import "
                                  f"{entry.attr.split('.')[0]}\nif __name__ == '__main__':\n"
                                  f"    sys.exit({entry.attr}())\n")
                script.chmod(0o755)


def _bytecode(dist, site: Path) -> list[tuple[Path, Path]]:
    """Each compiled module of ``dist`` for this interpreter, and where it goes in ``site``."""
    tag, pairs = sys.implementation.cache_tag, []
    for top in sorted({f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}):
        source = Path(dist.locate_file(top))
        if source.is_dir():
            pairs += [(pyc, site / pyc.relative_to(source.parent)) for cache in source.rglob("__pycache__")
                      for pyc in cache.glob(f"*.{tag}*.pyc")]
        elif source.suffix == ".py":
            pairs += [(pyc, site / "__pycache__" / pyc.name)
                      for pyc in (source.parent / "__pycache__").glob(f"{source.stem}.{tag}*.pyc")]
    return pairs
