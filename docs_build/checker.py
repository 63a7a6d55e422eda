"""The student guide's example of `capstone-check`: the students' own checker, built as `autograder student-kit` builds
it, run on the reference with one of its planted bugs (a known mistake put in on purpose), so the guide shows what a
student's screen really says, never a hand-typed copy of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.paths import KIT_ROOT
from autograder.projects import PROJECTS
from autograder.student_kit import build

# the guide's line that the run replaces: what a reader of the page in the repository sees in its place
MARKER = "> On the documentation site (`make docs`), a real run of `capstone-check` stands here."
WIDTH = 100  # the terminal's columns: the site's code block shows this many without scrolling


def checker_output(work: Path, pid: str, planted: tuple[str, str, str]) -> str:
    """What `capstone-check pid` prints on the reference of ``pid`` with the planted bug ``(module, old, new)``."""
    bundle = build(KIT_ROOT, work / "student-kit", projects=[pid])
    folder = work / "checked" / PROJECTS[pid].folder
    shutil.copytree(KIT_ROOT / "solutions" / PROJECTS[pid].folder, folder,
                    ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    module, old, new = planted
    source = (folder / module).read_text(encoding="utf-8")
    (folder / module).write_text(source.replace(old, new, 1), encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if k not in ("CI", "AUTOGRADER_PRIVATE")},
           "PYTHONPATH": str(bundle), "COLUMNS": str(WIDTH)}
    done = subprocess.run([sys.executable, "-m", "capstone_check", pid, "--folder", str(folder)], env=env,
                          capture_output=True, text=True, cwd=folder.parent, timeout=1800)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"capstone-check {pid} failed on the planted bug:\n{done.stdout}\n{done.stderr}")
    return done.stdout.replace(str(folder.parent), "~/capstone").rstrip()


def with_output(markdown: str, output: str, pid: str) -> str:
    """The page with its marker replaced by the run, as the terminal showed it."""
    block = f"```console\n$ capstone-check {pid}\n{output}\n```"
    return markdown.replace(MARKER, block)
