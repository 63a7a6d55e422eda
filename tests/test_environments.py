"""Each environment the kit may grade in, told apart: what the grader picks, enforces and says there (the table in
docs/environments.md)."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.cli import main
from autograder.report.table import AS_ROOT
from autograder.sandbox import cgroups, jail, user

from tests.support.grading import quick_course_data

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop needs root")


@pytest.fixture
def quick_d(tmp_path):
    """A course of D's two quick checks, graded in seconds."""
    course = tmp_path / "course.yml"
    course.write_text(yaml.safe_dump(quick_course_data({"D": ("D.weights", "D.kl_penalty")})))
    return course


def make_picks(path: str) -> str:
    """The Python ``make`` would build the venv from, with ``path`` first on PATH and no PYTHON of the caller's (CI
    sets one, which make takes as given)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHON"}
    done = subprocess.run(["make", "-n", "-p", "clean"], cwd=paths.KIT_ROOT, capture_output=True, text=True,
                          env={**env, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}, timeout=60)
    return re.search(r"^PYTHON := (.*)$", done.stdout, re.M).group(1)


@root_only
@pytest.mark.skipif(not (paths.KIT_ROOT / "Makefile").is_file() or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs the kit's Makefile and a system Python")
def test_make_as_root_builds_the_venv_from_a_python_the_sandbox_uids_can_run(tmp_path):
    closed = tmp_path / "home"  # a Python under a folder closed to others, as pyenv's under root's home
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(closed / "venv")], check=True)
    closed.chmod(0o700)
    assert make_picks(str(closed / "venv" / "bin")) == "/usr/bin/python3"
    assert make_picks(str(Path(sys.executable).parent)) == "python3"  # reachable: the python3 found is kept


@root_only
def test_the_score_table_says_when_student_code_ran_as_root(quick_d, capsys, monkeypatch):
    argv = ["--course", str(quick_d), "grade", str(paths.SOLUTIONS), "--projects", "D", "--seeds", "public"]
    assert main(argv) == 0
    assert AS_ROOT not in capsys.readouterr().out
    monkeypatch.setitem(user._python_runs, sys.executable, False)  # as if the sandbox uids could not run Python
    assert main(argv) == 0
    said = " ".join(capsys.readouterr().out.split())  # the title, however the terminal's width wraps it
    assert f"(public seeds) [{AS_ROOT}]" in said


# ------------------------------------------------------------------------------------------------ one row each

NOBODY = 65534
V1 = all((Path("/sys/fs/cgroup") / name / "cgroup.procs").exists() for name in ("memory", "pids"))
NOT_ROOT_LINE = ("not enforced here: memory, processes and disk per check (the grader is not root): memory_mb binds "
                 "each process alone, output_mb each file alone, processes each uid")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """D's reference and a course of D.weights alone, in a folder every uid may read (pytest's own is root's)."""
    folder = Path(tempfile.mkdtemp(prefix="environments-"))
    folder.chmod(0o755)
    (folder / "course.yml").write_text(yaml.safe_dump(quick_course_data({"D": ("D.weights",)})))
    shutil.copytree(paths.SOLUTIONS / "D_grpo", folder / "D_grpo", ignore=shutil.ignore_patterns("*.ipynb", "*.png"))
    (folder / "home").mkdir()
    os.chown(folder / "home", NOBODY, NOBODY)
    for path in folder.rglob("*"):
        path.chmod(path.stat().st_mode | 0o005 if path.is_dir() else path.stat().st_mode | 0o004)
    yield folder
    shutil.rmtree(folder)


def graded_in(world: Path, wrapper: list[str], path: str | None = None) -> tuple[str, list[str]]:
    """D.weights graded by the kit's command under ``wrapper``: the table's D row, and the warnings said."""
    argv = [*wrapper, str(Path(sys.executable).parent / "autograder"), "--course", str(world / "course.yml"),
            "grade", str(world / "D_grpo")]
    env = {"PATH": path or os.environ["PATH"], "HOME": str(world / "home"), "COLUMNS": "400"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=world)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "D total" in line)
    return " ".join(row.replace("│", " ").split()), [w for w in done.stderr.splitlines() if w.startswith("warning:")]


as_nobody = [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
can_be_nobody = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None or subprocess.run(
    [*as_nobody, sys.executable, "-c", "import autograder"], capture_output=True).returncode != 0,
    reason="needs root to become another uid, and that uid able to run this Python and the kit")


@root_only
@pytest.mark.skipif(not V1 or bool(jail._probe(None)), reason="needs cgroup v1's memory and pids and bubblewrap")
def test_root_with_bubblewrap_and_cgroup_v1_enforces_everything_and_says_nothing(world):
    assert graded_in(world, []) == ("D total 2/2", [])
    assert not isinstance(cgroups._usable(), str) and user.dropping((61000, 61063))


@root_only
@pytest.mark.skipif(not (shutil.which("unshare") and shutil.which("capsh")), reason="needs unshare and capsh")
def test_root_in_a_docker_like_container_grades_and_says_what_it_cannot_enforce(world):
    """Root without CAP_SYS_ADMIN and with cgroups read-only, as in a default container: a mount namespace of its own
    with every cgroup mount remounted read-only, and the capability dropped."""
    readonly = ("for m in $(awk '$3 ~ /^cgroup/ {print $2}' /proc/self/mounts); do mount -o remount,bind,ro $m $m "
                "|| exit 1; done")
    docker = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
              f'{readonly}; exec capsh --drop=cap_sys_admin -- -c \'exec "$@"\' capsh "$@"', "sh"]
    row, said = graded_in(world, docker)
    assert row == "D total 2/2"
    assert said == ["warning: not enforced here: memory, processes and disk per check (cgroups cannot be made here "
                    "(Read-only file system)): memory_mb binds each process alone, output_mb each file alone, "
                    "processes each uid; disk per check (a tmpfs could not be mounted: Operation not permitted) (see "
                    "docs/security.md)"]


@can_be_nobody
@pytest.mark.skipif(bool(jail._probe(None)), reason="bubblewrap cannot run here")
def test_a_non_root_instructor_with_bubblewrap_is_told_the_budget_is_per_process(world):
    row, said = graded_in(world, as_nobody)
    assert row == "D total 2/2"
    assert said == [f"warning: {NOT_ROOT_LINE}; disk per check (the grader is not root): output_mb binds each file "
                    "alone (see docs/security.md)"]


@can_be_nobody
def test_a_non_root_instructor_without_bubblewrap_is_told_both(world, tmp_path):
    row, said = graded_in(world, as_nobody, path=str(Path(sys.executable).parent))  # a PATH without bwrap
    assert row == "D total 2/2"
    assert said[0] == ("warning: bubblewrap (bwrap) is not installed: student code runs without its own namespaces, "
                       "protected by the limits alone (see docs/security.md)")
    assert said[1].startswith(f"warning: {NOT_ROOT_LINE}") and len(said) == 2


class SimulatedV2:
    """A cgroup v2 tree in a plain folder, with the kernel's rule the grader must follow: a group that holds
    processes cannot enable controllers for its children (EBUSY), and a pid written to a group's cgroup.procs leaves
    the group it was in."""

    def __init__(self, root: Path, own: str, pids: list[int]):
        self.root, self.own = root, root / own
        self.own.mkdir(parents=True)
        (root / "cgroup.controllers").write_text("cpu memory pids\n")
        (self.own / "cgroup.subtree_control").write_text("")
        (self.own / "cgroup.procs").write_text("".join(f"{pid}\n" for pid in pids))

    def write(self, path: Path, value: str) -> None:
        if path.name == "cgroup.subtree_control":
            if (path.parent / "cgroup.procs").read_text().split():
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            path.write_text(" ".join(word.lstrip("+") for word in value.split()))
        elif path.name == "cgroup.procs":
            for group in [self.own, *self.own.iterdir()]:
                procs = group / "cgroup.procs"
                if group.is_dir() and procs.exists():
                    procs.write_text("".join(f"{p}\n" for p in procs.read_text().split() if p != value))
            with path.open("a") as handle:
                handle.write(f"{value}\n")


@pytest.fixture
def v2(tmp_path, monkeypatch):
    own = "system.slice/grader.scope"  # the grader's group, with another process of its container
    tree = SimulatedV2(tmp_path / "cgroup", own, [os.getpid(), 4242])
    monkeypatch.setattr(cgroups, "CGROUP", tree.root)
    monkeypatch.setattr(cgroups, "_own_path", lambda controller: own if controller == "" else None)
    monkeypatch.setattr(cgroups, "_kernel_write", tree.write)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    return tree


def test_cgroup_v2_moves_the_grader_into_a_leaf_before_handing_controllers_to_the_checks(v2):
    with pytest.raises(OSError, match="busy"):  # the rule, as the simulated tree keeps it
        v2.write(v2.own / "cgroup.subtree_control", "+memory +pids")
    assert cgroups._bases() == {"": v2.own}
    assert (v2.own / "cgroup.subtree_control").read_text().split() == ["memory", "pids"]
    assert (v2.own / "cgroup.procs").read_text().split() == []
    assert sorted((v2.own / cgroups.LEAF / "cgroup.procs").read_text().split()) == sorted([str(os.getpid()), "4242"])


def test_cgroup_v2_where_a_process_cannot_be_moved_says_why(v2, monkeypatch):
    def refuse(path, value):
        if path.name == "cgroup.procs":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        v2.write(path, value)

    monkeypatch.setattr(cgroups, "_kernel_write", refuse)
    assert cgroups._bases() == (f"cgroup v2's memory and pids controllers cannot be delegated below {v2.own} "
                               "(Permission denied)")
