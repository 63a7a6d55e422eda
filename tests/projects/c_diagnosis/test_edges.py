"""C.fresh_runs labels fresh runs shaped to their edges: on every seed, every statistic a README rule reads sits at its
label's edge in every update, each run keeps its shape, and a `diagnose` that reads a statistic otherwise than the
README labels every run of a kind alike, whatever run the seed trained. The students' kit holds the public runs
shaped, so its row is final grading's."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.c_diagnosis import boundary, edges, fresh, lines, oracle, run_plan
from autograder.projects.c_diagnosis.public.diagnose import fresh_runs
from capstone_check.student import Student
from tests.projects.c_diagnosis.mutants import MUTANTS
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.readme_faithful import readme_faithful_label, readme_faithful_variants

PUBLIC = load_course(paths.COURSE_FILE, private=False).seeds.public
SEEDS = [4_000_000_000, 17, *PUBLIC]  # unsorted, an unusual one first
THRESHOLD = 'return "small_replay_buffer" if worst > 0.05 else "healthy"'  # the reference's small-buffer line


def shaped_runs(seed: int) -> list[tuple[run_plan.Run, dict, dict]]:
    """(run, its log as trained, its log shaped) for each of ``seed``'s runs, in plan order."""
    return list(zip(run_plan.fresh_plan(seed), fresh.unbundle(fresh.fresh_logs(seed)),
                    fresh.unbundle(edges.shaped_logs(seed))))


def per_update(log: dict, statistic) -> list[float]:
    return [statistic(log, log["update"] == u) for u in np.unique(log["update"])]


def entropy(log: dict, rows) -> float:
    return float(np.mean(oracle.entropy_nats(log["logits"][rows])))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_statistic_a_rule_reads_sits_at_its_labels_edge_in_every_update_on_every_seed(seed):
    for run, _, log in shaped_runs(seed):
        side = "healthy" if run.label == "healthy" else "fault"
        if "q_values" in log:
            assert per_update(log, boundary.relative) == pytest.approx(
                [edges.past(lines.EDGES.td, side)] * len(np.unique(log["update"])), abs=1e-12), (seed, run)
            signed = per_update(log, lambda log, rows: float(log["td_errors"][rows].sum()))
            assert np.abs(signed).max() < 1e-9 * np.abs(log["td_errors"]).sum(), (seed, run)
        else:
            policy = "fault" if run.label == "saturated_policy" else "healthy"
            assert per_update(log, entropy) == pytest.approx(
                [edges.past(lines.EDGES.entropy, policy)] * len(np.unique(log["update"])), abs=1e-9), (seed, run)
            critic = edges.past(lines.EDGES.variance, "fault" if run.label == "untrained_critic" else "healthy")
            assert lines.late_variance(log) == pytest.approx(critic, abs=1e-9), (seed, run)
        assert {readme_faithful_label(log, *variant) for variant in readme_faithful_variants()} == {run.label}


def test_the_example_logs_are_shaped_as_the_fresh_runs_are():
    """The student's own three logs (here the bundled example set) are graded by `my_labels`, which the kit predicts
    from `diagnose` on the fresh runs: they are shaped alike."""
    bar = load_course(paths.COURSE_FILE, private=False).projects["C"].checks["C.own_labels"].bar
    example = run_plan.student_set(run_plan.student_key(None, None, bar["example_seed"]))
    for folder in (paths.SOLUTIONS, paths.ASSIGNMENTS):
        for name, run in example.items():
            log = run_plan.load(folder / "C_diagnosis" / "logs" / f"{name}.npz")
            if "q_values" in log:
                side = "healthy" if run.label == "healthy" else "fault"
                assert per_update(log, boundary.relative) == pytest.approx(
                    [edges.past(lines.EDGES.td, side)] * len(np.unique(log["update"])), abs=1e-12), name
            else:
                policy = "fault" if run.label == "saturated_policy" else "healthy"
                assert np.mean(per_update(log, entropy)) == pytest.approx(edges.past(lines.EDGES.entropy, policy),
                                                                          abs=1e-9), name


def test_a_shaped_run_keeps_its_runs_shape():
    """The same fields, sizes, states, actions, returns and Q-values; the policy prefers what it preferred, the
    critic's residuals keep their proportions, and so do each update's TD errors of either sign."""
    for run, trained, log in shaped_runs(PUBLIC[0]):
        assert set(log) == set(trained) and all(log[k].shape == trained[k].shape for k in log), run
        for key in ("obs", "actions", "update", "returns", "episode_returns", "q_values", "mc_returns"):
            if key in log:
                assert np.array_equal(log[key], trained[key]), (run, key)
        if "q_values" in log:
            for u in np.unique(log["update"]):
                for sign in (1, -1):
                    rows = (log["update"] == u) & (np.sign(log["td_errors"]) == sign)
                    ratio = np.abs(log["td_errors"][rows]) / np.abs(trained["td_errors"][rows])
                    assert np.allclose(ratio, ratio[:1]), (run, u)
        else:
            assert np.array_equal(log["logits"].argmax(1), trained["logits"].argmax(1)), run
            ratio = (log["returns"] - log["values"]) / (trained["returns"] - trained["values"])
            assert np.allclose(ratio, ratio[0]), run


WRONG = ["diagnose with the old healthy-DQN line of 0.03", "TD errors averaged with their sign",
         "diagnose pools the TD errors over the whole log", "diagnose pools the late half's TD errors",
         "diagnose reads the critic before the policy",
         "diagnose reads explained variance over the whole run, not its late half",
         "a threshold that only works on the public logs"]


def diagnose_of(mutant_name: str):
    """The reference's ``diagnose`` with a planted bug, loaded apart."""
    mutant = next(m for m in MUTANTS if m.name == mutant_name)
    source = (paths.SOLUTIONS / "C_diagnosis" / "diagnostics.py").read_text(encoding="utf-8")
    namespace = {"__file__": str(paths.SOLUTIONS / "C_diagnosis" / "diagnostics.py")}
    exec(compile(mutate(source, mutant.old, mutant.new), "diagnostics.py", "exec"), namespace)  # noqa: S102
    return namespace["diagnose"]


@pytest.mark.parametrize("name", WRONG)
def test_a_diagnose_reading_a_statistic_otherwise_labels_each_kind_alike_on_every_seed(name):
    """The mistakes whose C.fresh_runs once turned on the draw (a run between a wrong line and the course's, signs
    that cancel on some runs, a critic that happened to explain little): right on every run of a kind, or wrong on
    every one, on every seed."""
    diagnose, outcomes = diagnose_of(name), {}
    for seed in SEEDS:
        for run, _, log in shaped_runs(seed):
            outcomes.setdefault((run.label, run.severity), set()).add(diagnose(log) == run.label)
    assert all(len(seen) == 1 for seen in outcomes.values()), outcomes


@pytest.fixture(scope="module")
def c_spec(tmp_path_factory):
    from autograder.student_kit import build
    import json

    kit = build(paths.KIT_ROOT, tmp_path_factory.mktemp("edges") / "kit", ["C"])
    expected = kit / "capstone_check" / "expected"
    return {**json.loads((expected / "C.json").read_text())["checks"]["C.fresh_runs"], "_dir": str(expected)}


def verdict_with(tmp_path, spec: dict, threshold: str | None):
    root = copy_reference(tmp_path, "C_diagnosis")
    path = root / "C_diagnosis" / "diagnostics.py"
    if threshold is not None:
        path.write_text(mutate(path.read_text(), THRESHOLD, THRESHOLD.replace("0.05", threshold)))
    with forgotten_after(["diagnostics"]):
        return fresh_runs(Student(root / "C_diagnosis", ["diagnostics"]), spec)


@pytest.mark.parametrize("threshold, right", [
    (None, True),  # the reference
    ("0.085", True),  # off the course's line (a log at the lines at 0.085 goes wrong) but short of the runs' edge
    ("0.1", False),  # beyond the edge: every small buffer, on every seed, is labelled healthy
])
def test_the_kits_row_on_the_shaped_public_runs_leaves_nothing_to_the_draw(tmp_path, c_spec, threshold, right):
    verdict = verdict_with(tmp_path, c_spec, threshold)
    assert verdict.spread is None and verdict.aside == "", verdict.message
    if right:
        assert (verdict.fraction, verdict.message) == (1, f"all {len(c_spec['runs'])} fresh runs labelled right")
    else:
        assert verdict.fraction == pytest.approx(6 / 8)  # both severities of the small buffer, every run of each
        assert verdict.message.startswith("3 small replay buffer runs (severity 1) labelled healthy"), verdict.message
