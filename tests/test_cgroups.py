"""A check's budget covers every process it starts: memory, processes and disk are counted for the check as a whole,
not per process or per file, whoever the processes run as (``autograder/sandbox/cgroups.py``)."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import pytest

from autograder.config import Limits
from autograder.sandbox import cgroups, user
from test_adversarial import CHEAP, in_kl, processes_with, tight
from tests.support.grading import grade_checks

ENFORCED = not isinstance(cgroups._usable(), str)
needs_cgroups = pytest.mark.skipif(not ENFORCED, reason=f"per-check budgets need root and cgroups: "
                                                        f"{cgroups._usable() if not ENFORCED else ''}")

# Four processes of 300 MB each, every page touched, all alive at once: the check then returns the right answer.
HOLD_TOGETHER = """    import subprocess, sys, time
    hold = ("x = bytearray(300 * 2**20); x[::4096] = b'1' * len(x[::4096]); print('held', flush=True); "
            "import time; time.sleep(30)")
    children = [subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE) for _ in range(4)]
    held = [child.stdout.readline() == b"held\\n" for child in children]
    if not all(held) or any(child.poll() is not None for child in children):
        raise MemoryError("the four processes could not hold their memory at once")
    for child in children:
        child.kill()
"""

# Eight files of 32 MB in the check's home: within output_mb each, 256 MB in all.
FILL_THE_DISK = """    for i in range(8):
        with open(f"fill-{i}.bin", "wb") as handle:
            handle.write(b"x" * 32 * 2**20)
"""


@needs_cgroups
def test_memory_is_counted_over_all_the_processes_of_a_check(tmp_path, course):
    """The attack: seven processes of one check held 4,970 MB with memory_mb 1024, each under the limit alone."""
    results = grade_checks(in_kl(tmp_path, HOLD_TOGETHER), tight(course, memory_mb=800), CHEAP)
    assert results["D.weights"]["passed"]
    assert not results["D.kl_penalty"]["passed"], results["D.kl_penalty"]


@needs_cgroups
def test_disk_is_counted_over_all_the_files_of_a_check(tmp_path, course):
    """The attack: one check wrote 3,600 MB to the grader's disk in files of 64 MB, each within output_mb."""
    results = grade_checks(in_kl(tmp_path, FILL_THE_DISK), tight(course, disk_mb=64), CHEAP)
    assert results["D.weights"]["passed"]
    assert not results["D.kl_penalty"]["passed"] and "disk limit" in results["D.kl_penalty"]["message"]


@needs_cgroups
def test_a_process_bomb_is_capped_where_children_keep_root(tmp_path, course, monkeypatch):
    """The attack: where children cannot drop to a uid of their own (they run as root, whom the process rlimit never
    binds), a bomb started 150 of 150 processes against a limit of 64."""
    monkeypatch.setitem(user._python_runs, sys.executable, False)  # as if the sandbox uids could not run Python
    marker = f"{5000 + os.getpid() % 1000}.925"
    root = in_kl(tmp_path, f"    import subprocess\n    for _ in range(150):\n"
                           f"        subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n")
    results = grade_checks(root, tight(course, processes=16), CHEAP)
    assert results["D.weights"]["passed"]
    assert results["D.kl_penalty"]["score"] == 0
    assert "started more than 16 processes" in results["D.kl_penalty"]["message"]
    assert processes_with(marker) == 0


@needs_cgroups
def test_the_budget_leaves_no_group_or_mount_behind(tmp_path, course, monkeypatch):
    """Every home this grading mounted is gone once it ends (homes graded elsewhere on the machine at the same time,
    by another test worker or grader, are not this grading's to judge)."""
    homes, mount_home = [], cgroups.CheckGroup.mount_home

    def recorded(self, home, uid):
        homes.append(f" {home} ")
        return mount_home(self, home, uid)

    monkeypatch.setattr(cgroups.CheckGroup, "mount_home", recorded)
    grade_checks(in_kl(tmp_path, FILL_THE_DISK), tight(course, disk_mb=64), CHEAP)
    bases = cgroups._usable()
    assert not [p for base in bases.values() for p in base.glob(f"autograder-{cgroups._run}-*")]
    assert homes  # each check's child had a home
    assert not [line for line in Path("/proc/self/mountinfo").read_text().splitlines()
                if any(home in line for home in homes)]


def test_where_the_budget_cannot_be_kept_it_says_what_is_not_enforced(monkeypatch):
    monkeypatch.setattr(cgroups, "_usable", lambda: "no cgroup hierarchy with the memory and pids controllers")
    held = cgroups.CheckGroup(Limits(wall_seconds=1, memory_mb=100))
    assert held.join == [] and "memory_mb binds each process alone" in held.missing[0]
    cgroups.say_once.cache_clear()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        cgroups.say_once(tuple(held.missing))
        cgroups.say_once(tuple(held.missing))
    assert len(said) == 1 and "not enforced here" in str(said[0].message)
