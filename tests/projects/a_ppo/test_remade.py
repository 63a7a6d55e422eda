"""A.bar's prediction from the reference's own runs (``_shared.public.ppo_remade``): the reference's pieces remake
every sampled update of a run recorded at release; a piece that departs where training reaches departs there (at the
first update, or late for a bug only truncations show); a piece whose check fails in cases training never meets
remakes the run; a run this machine cannot follow says so rather than guessing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from autograder.loader import load_course
from autograder.plan import planned
from autograder.projects.a_ppo.reference_runs import FILE, reference_runs, sampled_updates
from autograder.projects.a_ppo.public import bar as a_bar
from autograder.projects._shared.public import ppo_remade
from capstone_check.student import Student
from tests.support.grading import copy_reference, mutate
from tests.support.mutants import ALL

SEED = 4711  # no public or grading seed of the course


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> dict:
    """A.bar's spec as the students' kit holds it, for one unusual seed, its arrays written where the checker reads."""
    course = load_course(Path(__file__).resolve().parents[3] / "course.yml", private=False)
    settings = planned(course, "A", "A.bar", "public").context.bar.model_dump()
    made, folder = reference_runs(settings, [SEED]), tmp_path_factory.mktemp("expected")
    for name, arrays in made.pop("_files").items():
        np.savez_compressed(folder / name, **arrays)
    return {"bar": settings, "seeds": [SEED], **made, "_dir": str(folder)}


def departure_of(tmp_path: Path, spec: dict, bug: str | None = None) -> dict:
    """What ``remaking`` finds of the reference's folder with the planted bug named ``bug`` (None: as it is)."""
    copy_reference(tmp_path, "A_ppo")
    if bug is not None:
        mistake = next(m for m in ALL if m.folder == "A_ppo" and m.name.startswith(bug))
        path = tmp_path / "A_ppo" / mistake.module
        path.write_text(mutate(path.read_text(), mistake.old, mistake.new))
    return a_bar.remaking(Student(tmp_path / "A_ppo", ["ppo"]), spec, SEED)


def test_the_sample_holds_the_first_and_last_update_spread_over_the_run():
    updates = sampled_updates(60)
    assert updates[0] == 0 and updates[-1] == 59 and len(updates) == 10
    assert max(np.diff(updates)) <= 7


def test_the_reference_pieces_remake_every_sampled_update(tmp_path, spec):
    assert departure_of(tmp_path, spec) == {}


@pytest.mark.parametrize("bug, first", [("clip applied on the wrong side", 1),
                                        ("ppo_update divides the step size by the batch size", 1)])
def test_pieces_wrong_where_training_reaches_depart_at_the_first_update(tmp_path, spec, bug, first):
    found = departure_of(tmp_path, spec, bug)
    assert found["update"] == first and found["what"] == "parameters" and found["gap"] > 1e-3


def test_a_bug_only_truncations_show_departs_later_in_the_run(tmp_path, spec):
    found = departure_of(tmp_path, spec, "truncation treated as termination")
    assert found["update"] > 1, found


def test_a_piece_failing_only_where_training_never_goes_remakes_the_run(tmp_path, spec):
    """Its check fails (max for min beyond the clip), but no sampled update of the course's runs meets the case."""
    assert departure_of(tmp_path, spec, "min and max swapped in the clipped surrogate") == {}


def test_an_action_this_machine_samples_otherwise_leaves_the_run_unknown(tmp_path, spec):
    changed = {**spec, "_dir": str(tmp_path / "expected")}
    (tmp_path / "expected").mkdir()
    with np.load(Path(spec["_dir"]) / FILE) as files:
        arrays = dict(files)
    arrays[f"{SEED}.actions"][0] ^= 0b1000_0000  # the first action of the first update
    np.savez_compressed(tmp_path / "expected" / FILE, **arrays)
    assert "unknown" in departure_of(tmp_path / "student", changed)


def test_pieces_that_raise_on_the_reference_state_tell_nothing(tmp_path, spec):
    copy_reference(tmp_path, "A_ppo")
    with (tmp_path / "A_ppo" / "ppo.py").open("a") as module:
        module.write("\n_calls, _made = [0], ppo_update\n\n\ndef ppo_update(*args):\n    _calls[0] += 1\n"
                     "    if _calls[0] > 1:\n        raise ValueError('only once')\n    return _made(*args)\n")
    assert "unknown" in a_bar.remaking(Student(tmp_path / "A_ppo", ["ppo"]), spec, SEED)


def test_the_seeds_findings_make_one():
    departed = {"update": 4, "what": "parameters", "gap": 0.1}
    assert ppo_remade.remade({9: {}, 2: departed, 5: {"unknown": "why"}}) == {"seed": 2, **departed}
    assert ppo_remade.remade({9: {}, 2: {"unknown": "why"}}) is None
    assert ppo_remade.remade({9: {}, 2: {}}) == {}


def test_the_reference_pieces_on_another_blas_kernel_remake_the_run(tmp_path, spec):
    """The bundle's runs are recorded on the release machine's kernel; a student's machine may round otherwise. On
    seed 8 Adam's moments then land 4.1e-4 apart at the last update, above A.bar's moment tolerance (4e-4) and within
    the checker's slack."""
    import json
    import os
    import subprocess
    import sys

    copy_reference(tmp_path, "A_ppo")
    made = reference_runs(spec["bar"], [8])
    for name, arrays in made.pop("_files").items():
        np.savez_compressed(tmp_path / name, **arrays)
    (tmp_path / "spec.json").write_text(json.dumps({"bar": spec["bar"], "seeds": [8], **made, "_dir": str(tmp_path)}))
    script = ("import json, sys; from pathlib import Path; from autograder.projects.a_ppo.public import bar as a_bar; "
              "from capstone_check.student import Student; spec = json.loads(Path(sys.argv[1]).read_text()); "
              "print(json.dumps(a_bar.remaking(Student(Path(sys.argv[2]), ['ppo']), spec, spec['seeds'][0])))")
    env = {**os.environ, "OPENBLAS_CORETYPE": "Prescott", "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "spec.json"), str(tmp_path / "A_ppo")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}
