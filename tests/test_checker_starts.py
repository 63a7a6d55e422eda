"""How the students' checker starts each check's child (``capstone_check.starts``): forked from a server that imported
the checks once where the platform can fork, a fresh interpreter elsewhere. Both give the same rows, for a passing
submission, a planted bug, a child that exits, one that loops past its time (its whole session killed) and one that
runs out of memory; and the rows come in the order that gives a first verdict at once and wastes no core at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import paths
from autograder.student_kit import build
from capstone_check.runner import _tasks
from tests.support.grading import copy_reference, mutate, write_submission

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

ROWS = """import json, sys
from pathlib import Path
from capstone_check import runner
runner.FORK = sys.argv[1] == "fork"
rows = runner.run_project("D", Path(sys.argv[2]), sys.argv[3].split(","))
print(json.dumps(sorted([row.check, row.score, row.message] for row in rows)))
"""
REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
FIRST_LINE = '    r = np.asarray(r, dtype=float)\n    return r - r.mean()'


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    """D's students' bundle, D.weights' time cut to 2 s (6 s with the checker's allowance for slow laptops)."""
    kit = build(paths.KIT_ROOT, tmp_path_factory.mktemp("starts") / "kit", ["D"])
    expected = kit / "capstone_check" / "expected" / "D.json"
    data = json.loads(expected.read_text())
    data["checks"]["D.weights"]["wall_seconds"] = 2.0
    expected.write_text(json.dumps(data))
    return kit


def rows(kit: Path, folder: Path, checks: str, fork: bool) -> list:
    done = subprocess.run([sys.executable, "-c", ROWS, "fork" if fork else "fresh", str(folder), checks],
                          env={**os.environ, "PYTHONPATH": str(kit)}, cwd=kit.parent, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def submission(tmp_path: Path, body: str | None) -> Path:
    root = copy_reference(tmp_path, "D_grpo")
    if body is not None:
        write_submission(root, mutate(REFERENCE, FIRST_LINE, body))
    return root / "D_grpo"


def test_forked_and_fresh_children_give_the_same_rows_on_the_reference_and_a_planted_bug(kit, tmp_path):
    checks = "D.weights,D.kl_penalty,D.beta_sweep"
    folder = submission(tmp_path / "ok", None)
    reference = rows(kit, folder, checks, fork=True)
    assert [score for _, score, _ in reference] == [2.0, 1.0, 2.0]
    assert reference == rows(kit, folder, checks, fork=False)
    planted = submission(tmp_path / "bug", "    r = np.asarray(r, dtype=float)\n    return r - r.sum()")
    found = rows(kit, planted, "D.weights", fork=True)
    assert found[0][1] == 0.0 and found == rows(kit, planted, "D.weights", fork=False)


@pytest.mark.parametrize("body, said", [
    ("    import os\n    os._exit(3)", "exit status 3"),
    ("    return np.ones(2 * 10**8)", "ran out of memory"),
])
def test_a_child_that_exits_or_runs_out_of_memory_is_said_alike_forked_or_fresh(kit, tmp_path, body, said):
    folder = submission(tmp_path, body)
    forked = rows(kit, folder, "D.weights", fork=True)
    assert said in forked[0][2] and forked[0][1] == 0.0
    assert forked == rows(kit, folder, "D.weights", fork=False)


def test_a_forked_child_past_its_time_is_killed_with_everything_it_started(kit, tmp_path):
    """The loop starts a process of its own first: killing the child alone would leave that one running."""
    marker = tmp_path / "started.pid"
    body = (f"    import subprocess, pathlib\n    p = subprocess.Popen(['sleep', '300'])\n"
            f"    pathlib.Path({str(marker)!r}).write_text(str(p.pid))\n    while True:\n        pass")
    found = rows(kit, submission(tmp_path, body), "D.weights", fork=True)
    assert "did not finish within 6 s" in found[0][2]
    pid = int(marker.read_text())
    time.sleep(0.5)
    stat = Path(f"/proc/{pid}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z", "the loop's own process outlived the check"


def test_single_pieces_start_first_then_the_costliest_trainings():
    data = {"checks": {"D.weights": {"kind": "calls", "cost": 1.0},
                       "D.k_sweep": {"kind": "d_k_sweep", "cost": 15.0, "seeds": [7, 8, 9], "per_seed": True},
                       "D.beta_sweep": {"kind": "d_beta_sweep", "cost": 4.5, "seeds": [7, 8, 9], "per_seed": True},
                       "D.chapter_tables": {"kind": "d_chapter_tables", "cost": 9.0},
                       "D.grpo_step": {"kind": "calls", "cost": 1.0}}}
    order = [(check, seed) for check, seed, _ in _tasks(data, list(data["checks"]))]
    assert order == [("D.weights", None), ("D.grpo_step", None), ("D.chapter_tables", None), ("D.k_sweep", 7),
                     ("D.k_sweep", 8), ("D.k_sweep", 9), ("D.beta_sweep", 7), ("D.beta_sweep", 8),
                     ("D.beta_sweep", 9)]
