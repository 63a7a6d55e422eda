"""The fresh runs' edges: final grading grades only fresh runs at or beyond them, the students' kit holds each public
run moved to them, and the checker opens a kind of run only where `diagnose` labels its logs at the edges wrong."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.c_diagnosis import edges, fresh, lines, oracle, run_plan
from autograder.projects.c_diagnosis.public.diagnose import fresh_runs
from capstone_check.student import Student
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.readme_faithful import readme_faithful_label, readme_faithful_variants

PUBLIC = load_course(paths.COURSE_FILE, private=False).seeds.public
SEEDS = [4_000_000_000, 17, *PUBLIC]  # unsorted, an unusual one first
THRESHOLD = 'return "small_replay_buffer" if worst > 0.05 else "healthy"'  # the reference's small-buffer line


def runs(seed: int) -> list[tuple[run_plan.Run, dict]]:
    return list(zip(run_plan.fresh_plan(seed), fresh.unbundle(fresh.fresh_logs(seed))))


README = {"entropy": lines.ENTROPY, "variance": lines.LATE_VARIANCE, "td": lines.LATE_TD}


def set_by(label: str, log: dict) -> list[str]:
    """The statistics the edges set for a run of ``label``."""
    return ["td"] if "q_values" in log else ["entropy"] if label == "saturated_policy" else ["entropy", "variance"]


def statistics(log: dict) -> dict[str, float]:
    if "q_values" in log:
        return {"td": lines.worst_late_td(log)}
    return {"entropy": float(np.mean(oracle.entropy_nats(log["logits"]))), "variance": lines.late_variance(log)}


@pytest.mark.parametrize("seed", SEEDS)
def test_each_log_at_the_edges_sits_on_its_labels_edges_and_is_graded_and_labelled_right(seed):
    for run, log in runs(seed):
        if not lines.graded_fresh(log):
            continue
        moved, stats = edges.at_the_edges(run.label, log), statistics(log)
        at = statistics(moved)
        if run.label == "saturated_policy":
            assert at["entropy"] == pytest.approx(lines.EDGES.entropy.fault, abs=1e-8)
        elif "td" in at:
            side = lines.EDGES.td.healthy if run.label == "healthy" else lines.EDGES.td.fault
            assert at["td"] == pytest.approx(side, abs=1e-8)
        else:
            side = lines.EDGES.variance.healthy if run.label == "healthy" else lines.EDGES.variance.fault
            assert (at["entropy"], at["variance"]) == pytest.approx((lines.EDGES.entropy.healthy, side), abs=1e-8)
        for name in set_by(run.label, moved):  # moved toward the lines, never away: the run lay beyond its edge
            gap = README[name]
            line = min(gap, key=lambda side: abs(side - at[name]))
            assert abs(at[name] - line) <= abs(stats[name] - line) + 1e-12, (seed, run, name)
        assert lines.graded_fresh(moved), (seed, run)
        labels = {readme_faithful_label(moved, *variant) for variant in readme_faithful_variants()}
        assert labels == {run.label}, (seed, run)


def td_at(log: dict, worst: float) -> dict:
    return {**log, "td_errors": log["td_errors"] * worst / lines.worst_late_td(log)}


def test_a_run_between_a_line_and_its_edge_is_not_graded_and_one_on_the_edge_is():
    by_kind = {(run.label, run.severity): log for run, log in runs(PUBLIC[0])}
    buffer, dqn = by_kind[("small_replay_buffer", 1)], by_kind[("healthy", 2)]
    for log, edge, between in [(buffer, edges.past(lines.EDGES.td, "fault"), 0.085),
                               (dqn, edges.past(lines.EDGES.td, "healthy"), 0.047)]:
        assert lines.graded_fresh(td_at(log, edge))
        assert not lines.graded_fresh(td_at(log, between)) and not lines.in_a_gap(td_at(log, between))


def test_a_run_whose_statistics_say_another_fault_than_its_training_is_not_graded():
    """A healthy run whose critic explains under a tenth of the late variance (one of seed 2789219404's) is an
    untrained critic by every line the README states: a right diagnose says so, so final grading leaves it out. A
    healthy DQN with a spike beyond the small buffer's edge likewise; each kept at its own label."""
    by_kind = {(run.label, run.severity): log for run, log in runs(PUBLIC[0])}
    critic = by_kind[("healthy", 1)]
    residual = critic["returns"] - critic["values"]
    weak = {**critic, "values": critic["returns"] - residual * np.sqrt((1 - 0.09) / (1 - lines.late_variance(critic)))}
    assert np.isclose(lines.late_variance(weak), 0.09) and lines.readme_label(weak) == "untrained_critic"
    assert lines.graded_fresh(weak) and not lines.graded_fresh(weak, "healthy")
    assert lines.graded_fresh(weak, "untrained_critic")
    loud = td_at(by_kind[("healthy", 2)], 0.1)
    assert lines.graded_fresh(loud) and not lines.graded_fresh(loud, "healthy")
    assert lines.graded_fresh(loud, "small_replay_buffer")
    for seed in SEEDS:
        assert all(lines.graded_fresh(log, run.label) == (lines.graded_fresh(log) and lines.readme_label(log) ==
                                                          run.label) for run, log in runs(seed))


def test_the_public_runs_at_their_edges_hold_every_kind_of_run():
    kinds = {(run.label, run.severity) for seed in PUBLIC for run, log in runs(seed) if lines.graded_fresh(log)}
    assert kinds == set(run_plan.AGENTS)


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


@pytest.mark.parametrize("threshold, opened", [
    (None, False),  # the reference
    ("0.085", False),  # off the course's line (a log at the lines at 0.085 goes wrong) but short of the runs' edge
    ("0.1", True),  # beyond the edge: a grading seed's small buffer at 0.0999 is labelled healthy
])
def test_a_kind_is_opened_only_where_diagnose_goes_wrong_at_its_edge(tmp_path, c_spec, threshold, opened):
    verdict = verdict_with(tmp_path, c_spec, threshold)
    assert verdict.fraction == 1, verdict.message
    assert (verdict.spread is not None) == opened, verdict.message
    graded = [(truth, severity) for truth, severity, kept in c_spec["runs"] if kept]
    assert verdict.message == f"all {len(graded)} graded fresh runs labelled right"  # final grading's, whatever
    if opened:  # the prediction is said beside the row
        kinds = len(set(graded))
        assert verdict.spread == pytest.approx([1 - 2 / kinds, 1])  # both severities of the small buffer
        assert "is right on the public small replay buffer (severity 1, 2) runs but not at the edge" in verdict.aside
    else:
        assert verdict.aside == ""


def test_a_diagnose_that_changes_the_logs_it_is_given_leaves_the_logs_at_the_edges_as_built(tmp_path, c_spec):
    """The logs at the edges lay their moved fields over the runs read afresh, not over the arrays the fresh runs'
    calls were handed (which this `diagnose` zeroes after labelling)."""
    root = copy_reference(tmp_path, "C_diagnosis")
    path = root / "C_diagnosis" / "diagnostics.py"
    path.write_text(path.read_text() + '''

_labelled = diagnose


def diagnose(log):
    label = _labelled(log)
    for key in ("q_values", "returns"):
        if key in log:
            log[key][...] = 0.0
    return label
''')
    with forgotten_after(["diagnostics"]):
        verdict = fresh_runs(Student(root / "C_diagnosis", ["diagnostics"]), c_spec)
    assert verdict.fraction == 1 and verdict.spread is None, verdict.message
