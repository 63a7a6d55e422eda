"""B.table's and B.bar's prediction from the reference's own runs (``b_ablations.public.remade``): the reference's
pieces remake every sampled update of every setting's run, on unusual, unsorted seeds and on another BLAS kernel; a
piece that departs where a setting's training reaches departs in that setting's run (at the first update, or late for
a bug only truncations show) and nowhere it does not act; pieces that raise raise here too; an optimizer the loop
cannot use, or a setting that is no setting, tells nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder.loader import load_course
from autograder.plan import planned
from autograder.projects.b_ablations.catalogue import DETAILS, flipped
from autograder.projects.b_ablations.reference_runs import FILE, reference_runs, sampled_updates
from autograder.projects.b_ablations.public import remade as b_remade
from capstone_check.student import Student, StudentError
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL

SEEDS = [4_000_000_000, 17]  # no public or grading seed of the course, unsorted
MODULES = ["ppo", "details", "ablation"]
KIT = Path(__file__).resolve().parents[3]


def probe_spec(folder: Path, seeds: list[int]) -> dict:
    """B.bar's probe as the students' kit holds it, for ``seeds``, its arrays written into ``folder``."""
    course = load_course(KIT / "course.yml", private=False)
    bar = planned(course, "B", "B.bar", "public").context.bar
    made = {name: getattr(bar, name) for name in ("num_envs", "n_steps", "n_updates", "replay_tolerance",
                                                  "moment_tolerance")}
    made["hyperparameters"] = bar.hyperparameters.model_dump()
    runs = reference_runs(made, seeds)
    for name, arrays in runs.pop("_files").items():
        np.savez_compressed(folder / name, **arrays)
    settings = {name: flipped(None if name == "baseline" else name) for name in ["baseline", *DETAILS]}
    return {"bar": made, "seeds": seeds, "settings": settings, **runs, "_dir": str(folder)}


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> dict:
    return probe_spec(tmp_path_factory.mktemp("expected"), SEEDS)


def folder_with(tmp_path: Path, bug: str | None = None) -> Path:
    """B's reference folder, with the planted bug whose name starts with ``bug``."""
    folder = copy_reference(tmp_path, "B_ablations") / "B_ablations"
    if bug is not None:
        mistake = next(m for m in ALL if m.folder == "B_ablations" and m.name.startswith(bug))
        path = folder / mistake.module
        path.write_text(mutate(path.read_text(), mistake.old, mistake.new))
    return folder


def departures(folder: Path, spec: dict, settings) -> dict:
    with forgotten_after(MODULES):
        student = Student(folder, MODULES)
        return {(s, seed): b_remade.departure(student, spec, s, seed) for s in settings for seed in spec["seeds"]}


def first(folder: Path, spec: dict, settings) -> dict | None:
    with forgotten_after(MODULES):
        return b_remade.first_departure(Student(folder, MODULES), spec, settings)


def test_the_baseline_is_sampled_over_the_run_and_every_other_setting_at_its_first_update(spec):
    assert sampled_updates("baseline", 60) == [0, 12, 24, 35, 47, 59]
    assert all(sampled_updates(name, 60) == [0] for name in DETAILS)
    assert sorted(spec["reference_runs"]["runs"]) == sorted(f"{s}.{seed}" for s in ["baseline", *DETAILS]
                                                            for seed in SEEDS)


def test_the_reference_pieces_remake_every_setting_s_run(tmp_path, spec):
    found = departures(folder_with(tmp_path), spec, ["baseline", *DETAILS])
    assert found == {key: {} for key in found} and len(found) == 20


@pytest.mark.parametrize("bug, setting, update", [
    ("clipped value loss with the plain gradient everywhere", "clip_value_loss", 1),
    ("annealing one update early", "baseline", 1),
    ("truncation switch that never bootstraps", "baseline", None),  # only where an episode is truncated: late
])
def test_a_piece_departs_in_the_runs_that_reach_it(tmp_path, spec, bug, setting, update):
    found = first(folder_with(tmp_path, bug), spec, ["baseline", *DETAILS])
    assert found["setting"] == setting and found["seed"] == SEEDS[0] and found["what"] == "parameters", found
    assert found["update"] == update if update else found["update"] > 1, found
    assert found["gap"] > 1e-3


def test_a_piece_acting_only_under_a_setting_leaves_the_others_runs_as_they_were(tmp_path, spec):
    """The plain-gradient value clip acts only where clip_value_loss is on: B.table's runs (the baseline and the
    reference's named multiple_epochs) never reach it, so nothing is found there."""
    folder = folder_with(tmp_path, "clipped value loss with the plain gradient everywhere")
    assert first(folder, spec, ["baseline", "multiple_epochs"]) is None


def test_pieces_that_raise_raise_here_as_in_final_grading_s_runs(tmp_path, spec):
    folder = folder_with(tmp_path)
    with (folder / "details.py").open("a") as module:
        module.write("\n\ndef ppo_update(*args):\n    raise ValueError('not here')\n")
    with pytest.raises(StudentError, match="ValueError"):
        first(folder, spec, ["baseline"])


def test_an_optimizer_the_loop_cannot_use_or_a_setting_that_is_none_tell_nothing(tmp_path, spec):
    folder = folder_with(tmp_path)
    with (folder / "details.py").open("a") as module:
        module.write("\n\ndef make_optimizer(agent, config, details):\n    return object()\n")
    assert first(folder, spec, ["baseline"]) is None
    assert first(folder_with(tmp_path / "other"), spec, ["no such detail"]) is None


def test_the_reference_pieces_on_another_blas_kernel_remake_the_runs(tmp_path):
    """The bundle's runs are recorded on the release machine's kernel, a student's may round otherwise: runs recorded
    under the Prescott kernel land within 3e-6 a weight here, a hundredth of the tolerance."""
    script = ("import json, sys; from pathlib import Path; from tests.projects.b_ablations.test_remade import "
              "probe_spec; print(json.dumps(probe_spec(Path(sys.argv[1]), [8])))")
    env = {**os.environ, "OPENBLAS_CORETYPE": "Prescott", "PYTHONPATH": str(KIT)}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert (tmp_path / FILE).is_file()
    assert first(folder_with(tmp_path / "student"), made, ["baseline", *DETAILS]) is None


@pytest.mark.parametrize("old, new", [
    ("mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01)", "mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.02)"),
    ('{"actor": mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01),\n                "critic": '
     'mlp_init(sizes + [1], rng, out_gain=1.0)}',
     '{"critic": mlp_init(sizes + [1], rng, out_gain=1.0),\n                "actor": '
     'mlp_init(sizes + [N_ACTIONS], rng, out_gain=0.01)}'),  # the critic drawn first
])
def test_the_first_update_starts_from_the_pieces_own_init(tmp_path, spec, old, new):
    """Final grading's judge starts a run's first update from the grader's init, so an init of other weights, or one
    that draws otherwise, departs there; the remake starts it from the student's init to see the same."""
    folder = folder_with(tmp_path)
    (folder / "details.py").write_text(mutate((folder / "details.py").read_text(), old, new))
    found = first(folder, spec, ["baseline"])
    assert found["update"] == 1 and found["setting"] == "baseline", found


def test_an_init_of_another_shape_raises_as_final_grading_s_runs_fail(tmp_path, spec):
    folder = folder_with(tmp_path)
    (folder / "details.py").write_text(mutate((folder / "details.py").read_text(), "mlp_init(sizes + [1], rng",
                                              "mlp_init(sizes + [2], rng"))
    with pytest.raises(StudentError, match="weights where the course's network has"):
        first(folder, spec, ["baseline"])
