"""The proof of learning for Project B: B.table credits only runs whose every update the judge replays with the
reference's switches, and scores the table from the judge's own replayed episodes; B.bar credits the grader's own runs
only to pieces that make a secret sample of their updates (``bar_runs``). The reference passes; each cheat earns 0 on
both with a sentence naming the update that did not follow. Runs are short (8 updates,
16 environments, one public seed) and the graded reference is shared, to keep the suite lean;
``benchmarks/b_proof_of_learning.py`` does the course's full runs."""

import json
import os
import subprocess
import sys

import pytest

from autograder import paths
from autograder.departures import clause
from autograder.projects.b_ablations import proofs, student_runs
from tests.support.grading import copy_reference, grade_checks, mutate, write_submission

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

FOLDER = paths.SOLUTIONS / "B_ablations"
CHECKS = ["B.table", "B.bar"]
N_UPDATES, NUM_ENVS = 8, 16
SAMPLE = 3  # B.table's re-made updates of each short run: the first and two of the other seven
UPDATE = '    B = len(batch["actions"])\n'  # the first line of the reference's details.ppo_update
HARNESS = ("import ablation\n"
           "from rlkit.runproof import run_name, save_runs\n"
           f"ablation.NUM_ENVS, ablation.N_UPDATES, ablation.SEEDS = {NUM_ENVS}, {N_UPDATES}, (7,)\n"
           "done = {name: ablation.run_one((name, 7)) for name in ['baseline', *ablation.ablated()]}\n"
           "save_runs(ablation.RUNS, {run_name(name, 7): proof for name, (_, proof) in done.items()})\n"
           "ablation.save_results({name: [score] for name, (score, _) in done.items()})\n")


@pytest.fixture(scope="module")
def short(course):
    """The course with B's re-runs cut to 8 updates of 16 environments on one public seed."""
    project = course.projects["B"]
    checks = {cid: check.model_copy(update={"bar": {**check.bar, "n_updates": N_UPDATES, "num_envs": NUM_ENVS,
                                                    **({"remade_updates": SAMPLE} if cid == "B.table" else {})}})
              if cid in CHECKS else check for cid, check in project.checks.items()}
    return course.model_copy(update={"projects": {**course.projects,
                                                  "B": project.model_copy(update={"checks": checks})},
                                     "seeds": course.seeds.model_copy(update={"public": [7]})})


def submission(root, files: dict | None = None, harness: bool = True, env: dict | None = None,
               after: dict | None = None):
    """The reference's B folder with ``files`` replaced; its results.json and runs.npz written by its own harness on
    the short budget (in a process with ``env`` added to its environment), then a results.json of ``files`` put in
    their place, and the files of ``after`` (pieces other than those that made the runs)."""
    copy_reference(root, "B_ablations")
    files = dict(files or {})
    table = files.pop("results.json", None)
    for name, text in files.items():
        write_submission(root, text, "B_ablations", name)
    if harness:
        subprocess.run([sys.executable, "-c", HARNESS], cwd=root / "B_ablations", check=True, capture_output=True,
                       env={**os.environ, **(env or {})})
    if table is not None:
        write_submission(root, table, "B_ablations", "results.json")
    for name, text in (after or {}).items():
        write_submission(root, text, "B_ablations", name)
    return root


@pytest.fixture(scope="module")
def reference(tmp_path_factory, short):
    return grade_checks(submission(tmp_path_factory.mktemp("reference")), short, CHECKS)


def test_the_reference_passes_on_runs_the_judge_replayed(reference):
    assert all(reference[cid]["passed"] for cid in CHECKS), {cid: reference[cid]["message"] for cid in CHECKS}
    assert set(reference["B.bar"]["details"]["scores"]) == {"baseline", "normalize_advantages", "clip_value_loss",
                                                            "orthogonal_init", "anneal_lr", "multiple_epochs"}


def short_replay_bar(course) -> proofs.ReplayBar:
    """B.bar's replay as course.yml sets it (its tolerances), on a run of 3 updates of 8 environments."""
    bar = course.projects["B"].checks["B.bar"].bar
    return proofs.ReplayBar(num_envs=8, n_steps=16, n_updates=3, replay_tolerance=bar["replay_tolerance"],
                            moment_tolerance=bar["moment_tolerance"])


def test_every_setting_replays_with_the_reference_switches(course):
    """Each switch's run in the kit's loop follows the reference's replay of that setting, settings whose run the
    check above does not cover included."""
    from capstone_check.student import Student

    bar = short_replay_bar(course)
    student = Student(FOLDER, ("ppo", "details", "ablation"))
    names = ["baseline", "clip_gradients", "entropy_bonus", "large_adam_eps", "bootstrap_truncation"]
    runs = proofs.recorded_runs(student, names, 11, bar)
    for name in names:
        assert proofs.replay(runs["settings"][name], 11, bar)[1] is None, name


def cheat_of(edit: str) -> dict:
    return {"details.py": mutate((FOLDER / "details.py").read_text(), UPDATE, edit + UPDATE)}


# right at the first update, wrong after (B.table's and B.bar's samples)
LATE = ('    B = len(batch["actions"])\n',
        '    B = len(batch["actions"])\n    if optimizer.t > 0:  # right at the first update, wrong after\n'
        '        batch = {**batch, "returns": batch["returns"] + 1.0}\n')
CALLS = "    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n"
NO_TRAINING = ("\n\nimport details as _details\n_details.ppo_update = lambda *args, **kwargs: {}\n\n\n"
               "def run_ablation(which=None, seeds=SEEDS, workers=2):\n"
               "    return {name: [480.0, 470.0, 490.0] if name == 'baseline' else [120.0, 110.0, 130.0]\n"
               "            for name in ['baseline', *ablated()]}\n")
FABRICATED = {"scores": {"baseline": [480.0], "normalize_advantages": [470.0], "clip_value_loss": [475.0],
                         "orthogonal_init": [478.0], "anneal_lr": [481.0], "multiple_epochs": [120.0]}}
FABRICATED["summary"] = {k: {"median": v[0], "min": v[0], "max": v[0]} for k, v in FABRICATED["scores"].items()}
CHEATS = {
    "a fabricated results.json, written by an ablation.py that does not train": (
        {"ablation.py": (FOLDER / "ablation.py").read_text() + NO_TRAINING, "results.json": json.dumps(FABRICATED)},
        (1, 1)),
    "pre-trained weights hard-coded in ppo_update": (cheat_of(
        "    for p in optimizer.params:\n        p[...] = np.full(p.shape, 0.05, p.dtype)\n    return {}\n"), (1, 1)),
    # the fifth call: update 5 of B.table's runs; in B.bar's child, the first update of the second setting's run
    "a forged jump at one update": (cheat_of(CALLS + "    if CALLS == 5:\n        agent['actor'][0][1] += 5e-2\n"),
                                    (5, 1)),
}  # cheat: (files, the update each of CHECKS names)


def test_pieces_right_at_the_first_update_only_earn_no_bar(tmp_path, short):
    """B.bar's runs are the grader's; the folder's pieces make a sample of their updates again, the first and others
    drawn from the course secret: pieces that make the first update as the reference does and depart from the second
    on earn nothing, and the row names a later update."""
    late = {"details.py": mutate((FOLDER / "details.py").read_text(), *LATE)}
    result = grade_checks(submission(tmp_path, late, harness=False), short, ["B.bar"])["B.bar"]
    assert result["score"] == 0 and "Not credited: your pieces did not make the updates" in result["message"], result
    assert "at update 1 of" not in result["message"], result


@pytest.mark.parametrize("cheat", CHEATS)
def test_a_cheat_earns_nothing_and_the_update_is_named(tmp_path, short, cheat):
    files, updates = CHEATS[cheat]
    results = grade_checks(submission(tmp_path, files), short, CHECKS)
    for cid, update in zip(CHECKS, updates):
        result = results[cid]
        assert result["score"] == 0 and f"at update {update} of {N_UPDATES}" in result["message"], result


def test_a_made_up_table_earns_nothing_beside_honest_runs(tmp_path, short):
    """The runs follow, but results.json was invented: its form alone (rows present, a summary of its own numbers)
    earns no point."""
    results = grade_checks(submission(tmp_path, {"results.json": json.dumps(FABRICATED)}), short, ["B.table"])
    assert results["B.table"]["score"] == 0 and "replayed by the grader, score" in results["B.table"]["message"]


def test_an_edited_number_loses_its_row(tmp_path, short, reference):
    """One score of an honest table nudged by 0.1: that row no longer is what its runs scored, and the table's form
    counts for nothing beside it."""
    root = submission(tmp_path)
    path = root / "B_ablations" / "results.json"
    table = json.loads(path.read_text())
    table["scores"]["baseline"][0] += 0.1
    path.write_text(json.dumps(table))
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert 0 < result["score"] < reference["B.table"]["score"] and "baseline: your table says" in result["message"]


def test_runs_made_under_another_blas_kernel_earn_full_marks(tmp_path, short):
    """The harness run with OpenBLAS's oldest x86 kernel (other roundings in every product), graded here under the
    machine's own: the table is what those runs scored, and their replay follows update by update."""
    root = submission(tmp_path, env={"OPENBLAS_CORETYPE": "Prescott"})
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert result["passed"], result["message"]


def test_a_table_without_its_runs_is_told_what_to_hand_in(tmp_path, short):
    root = submission(tmp_path)
    (root / "B_ablations" / "runs.npz").unlink()
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert result["score"] == 0 and "expected runs.npz beside ablation.py" in result["message"]


def test_episodes_patched_in_the_child_do_not_reach_the_score(tmp_path, short, reference):
    """The wrapper that recorded B's curves before the proof, patched to claim returns CartPole cannot give: the
    scores are the judge's own, from its replayed episodes, and equal the reference's."""
    forgery = ("\n\nimport autograder.projects._shared.ppo.recording as _training\n"
               "_step = _training.BudgetedEnvs.step\n\n\n"
               "def _forged(self, actions):\n    out = _step(self, actions)\n"
               "    self.finished = [(u, 10_000.0) for u, _ in self.finished]\n    return out\n\n\n"
               "_training.BudgetedEnvs.step = _forged\n")
    results = grade_checks(submission(tmp_path, {"details.py": (FOLDER / "details.py").read_text() + forgery}), short,
                           ["B.table"])
    assert results["B.table"]["passed"], results["B.table"]["message"]
    assert results["B.table"]["details"]["scores"] == reference["B.table"]["details"]["scores"]


def test_forged_adam_moments_are_named(course):
    """Each replay starts from the student's Adam moments too, so they are checked like the parameters."""
    import base64

    import numpy as np

    from capstone_check.student import Student

    bar = short_replay_bar(course)
    run_ = proofs.recorded_runs(Student(FOLDER, ("ppo", "details", "ablation")), ["baseline"], 12, bar)["settings"]
    moments = np.frombuffer(base64.b64decode(run_["baseline"]["moments"]), "<f4").copy().reshape(3, -1)
    m, v = np.split(moments[1], 2)  # after update 2: m, then v
    entry = int(np.argmax(np.abs(m) / (np.sqrt(v) + 1e-5)))  # the entry that moves Adam's next step most
    moments[1, entry] *= 1.5
    forged = {**run_["baseline"], "moments": base64.b64encode(moments.tobytes()).decode()}
    failure = proofs.replay(forged, 12, bar)[1]
    assert clause(failure).startswith("at update 2 of 3, Adam's moments"), failure


STEERING_CONFIG = {"lr: float = 2.5e-3": "lr: float = 1.0", "adam_eps: float = 1e-5": "adam_eps: float = 1.0",
                   "max_grad_norm: float = 0.5": "max_grad_norm: float = 0.0"}
STEERED = ("    for _ in range(config.epochs if details.multiple_epochs else 1):\n"
           "        rng.permutation(len(batch['actions']))\n"
           "    zeros = [np.zeros_like(p) for p in optimizer.params]\n"
           "    for _ in range(config.minibatches * (config.epochs if details.multiple_epochs else 1)):\n"
           "        optimizer.step(zeros)\n"
           "    optimizer.m[...] += np.float32(9e-4)\n    return {}\n")  # no PPO: every move is Adam's, steered by m


def with_config(edits: dict) -> str:
    source = (FOLDER / "ppo.py").read_text()
    for old, new in edits.items():
        source = mutate(source, old, new)
    return source


def test_a_config_that_would_steer_the_replay_earns_no_bar_without_ppo(tmp_path, short):
    """The steering attack on B.bar, as A's (test_proof_of_learning.py): no PPO, a Config of the student's choosing
    that clips every gradient to 0, and Adam's m steered just inside the tolerance. With the course's
    hyperparameters the first update departs."""
    root = submission(tmp_path, {"ppo.py": with_config(STEERING_CONFIG), **cheat_of(STEERED)}, harness=False)
    result = grade_checks(root, short, ["B.bar"])["B.bar"]
    assert result["score"] == 0 and f"at update 1 of {N_UPDATES}" in result["message"], result


def test_a_table_made_with_another_config_is_told_which_values_differ(tmp_path, short):
    root = submission(tmp_path, {"ppo.py": with_config({"lr: float = 2.5e-3": "lr: float = 5e-3"})})
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert result["score"] == 0 and "Config() differs: lr 0.005 (the course's: 0.0025)" in result["message"], result


# B.table credits only runs the folder's own pieces make
NAMING_CLIP = {"ablation.py": mutate((FOLDER / "ablation.py").read_text(), 'return ("multiple_epochs",)',
                                     'return ("multiple_epochs", "clip_value_loss")')}  # its run is in the table
BUGGY_PIECES = {
    "GAE that ignores lambda": ("ppo.py", "running = delta + gamma * lam * (1", "running = delta + gamma * (1"),
    "a clipped value loss with the plain gradient": (
        "details.py", "grad = np.where(use_clipped, (clipped - returns) * (np.abs(values - values_old) < eps), "
        "values - returns)", "grad = values - returns"),
    "advantages scaled but not centred": (
        "details.py", "adv = (adv - adv.mean()) / (adv.std() + 1e-8)", "adv = adv / (adv.std() + 1e-8)"),
}


PIECES_DEPART = "your details.py and ppo.py, run by the grader from your recorded run, made"


def buggy(bug: str) -> dict:
    name, old, new = BUGGY_PIECES[bug]
    return {name: mutate((FOLDER / name).read_text(), old, new)}


@pytest.mark.parametrize("bug", BUGGY_PIECES)
def test_a_classmates_runs_earn_nothing_beside_other_pieces(tmp_path, short, bug):
    """The copied-runs attack: results.json and runs.npz made by correct pieces (a classmate's), handed in over
    buggy ones. The runs follow the reference's replay, but this folder's pieces do not make their updates."""
    result = grade_checks(submission(tmp_path, NAMING_CLIP, after=buggy(bug)), short, ["B.table"])["B.table"]
    assert result["score"] == 0 and PIECES_DEPART in result["message"], result


@pytest.mark.parametrize("bug", BUGGY_PIECES)
def test_buggy_pieces_with_their_own_runs_earn_what_their_runs_earn(tmp_path, short, bug):
    """The same folders with the runs their own pieces made: nothing either, from the first update, whether the
    replay names the run (a gap beyond what another CPU explains) or, within that, the pieces."""
    result = grade_checks(submission(tmp_path, {**NAMING_CLIP, **buggy(bug)}), short, ["B.table"])["B.table"]
    assert result["score"] == 0 and ("at update 1 of 8" in result["message"]
                                     or PIECES_DEPART in result["message"]), result


def test_a_second_moment_the_pieces_leave_otherwise_is_named(tmp_path, short):
    """Each sampled update is re-made by the pieces from the recorded Adam's v and held to the reference's from the
    same state: pieces that inflate v, which would shrink every step of the next update, depart though their
    parameters follow, at the first update, which every sample holds."""
    inflating = mutate((FOLDER / "details.py").read_text(), "    kl, clip_fraction, H, v_loss = np.mean(stats",
                       "    optimizer.v *= 1.5\n    kl, clip_fraction, H, v_loss = np.mean(stats")
    result = grade_checks(submission(tmp_path, after={"details.py": inflating}), short, ["B.table"])["B.table"]
    assert result["score"] == 0 and PIECES_DEPART in result["message"] and "update 1 of 8" in result["message"] \
        and "Adam's second moment" in result["message"], result


# B.table's secret sample: the folder's pieces re-make the first update of each run and others drawn from the key


def test_pieces_right_at_the_first_update_only_earn_nothing_over_copied_runs(tmp_path, short):
    """The sample's attack: a classmate's runs over pieces that make the first update as the reference does and depart
    from the second on. Each run's sample holds the first update and others, so the binding still sees them."""
    late = {"details.py": mutate((FOLDER / "details.py").read_text(), *LATE)}
    result = grade_checks(submission(tmp_path, after=late), short, ["B.table"])["B.table"]
    assert result["score"] == 0 and PIECES_DEPART in result["message"], result
    assert "at update 1 of" not in result["message"], result


def test_the_judge_draws_the_sample_itself(course, tmp_path):
    """What the child re-made for another key's sample (a child that claims other updates) departs: the judge draws
    the updates from its own key, never from what the child says."""
    from capstone_check.student import Student
    from rlkit.runproof import load_runs

    root = submission(tmp_path)
    fields = {key: value for key, value in course.projects["B"].checks["B.table"].bar.items()
              if key in proofs.OwnReplayBar.model_fields}
    table = proofs.OwnReplayBar(**{**fields, "n_updates": N_UPDATES, "num_envs": NUM_ENVS, "remade_updates": SAMPLE})
    student = Student(root / "B_ablations", ("ppo", "details", "ablation"))
    assert "baseline-7" in load_runs(root / "B_ablations" / proofs.RUNS)
    ours, theirs = "grader's key", "another key"
    assert student_runs.sampled_updates(ours, "baseline", 7, N_UPDATES, table.remade_updates) != \
        student_runs.sampled_updates(theirs, "baseline", 7, N_UPDATES, table.remade_updates)
    run_ = student_runs.own_runs(student, ["baseline"], 7, table, theirs)["settings"]["baseline"]
    assert student_runs.replay_own(run_, 7, table.model_copy(update={"key": theirs}).model_dump())[1] is None
    failure = student_runs.replay_own(run_, 7, table.model_copy(update={"key": ours}).model_dump())[1]
    assert failure and PIECES_DEPART in clause(failure), failure


def test_runs_written_before_the_second_moment_was_kept_are_told_to_run_again(tmp_path, short):
    """runs.npz from the kit's earlier rlkit (Adam's m alone): run ablation.py again, said as such."""
    from rlkit.runproof import load_runs, pack, save_runs, unpack

    root = submission(tmp_path)
    path = root / "B_ablations" / proofs.RUNS
    older = {}
    for name, blob in load_runs(path).items():
        header, snapshots, moments, actions = unpack(blob)
        older[name] = pack({key: header[key] for key in ("setting", "seed")}, snapshots,
                           moments[:, :snapshots.shape[1]], actions)
    path.unlink()
    save_runs(path, older)
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert result["score"] == 0 and "run `python ablation.py` again" in result["message"] \
        and "first moment alone" in result["message"], result


def test_a_second_moment_recorded_to_steer_the_run_earns_nothing(tmp_path, short):
    """runs.npz keeps Adam's v only so that a sampled update can be re-made alone; the judge replays every update with
    its own v. Runs whose v was shrunk after each update, so that the next one's steps are ten times larger and
    the recorded v within its tolerance, handed in beside correct pieces, depart the replay at the second update."""
    steering = mutate((FOLDER / "details.py").read_text(), "    kl, clip_fraction, H, v_loss = np.mean(stats",
                      "    optimizer.v *= np.float32(1e-2)\n    kl, clip_fraction, H, v_loss = np.mean(stats")
    root = submission(tmp_path, {"details.py": steering}, after={"details.py": (FOLDER / "details.py").read_text()})
    result = grade_checks(root, short, ["B.table"])["B.table"]
    assert result["score"] == 0 and f"at update 2 of {N_UPDATES}" in result["message"], result
    assert PIECES_DEPART not in result["message"], result
