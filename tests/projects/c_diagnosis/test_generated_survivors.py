"""Two generated mutants of C's reference (tests/support/mutations.py) that kept full marks, each a real mistake, caught
now by a case drawn after the others: the entropy's shift by the row's smallest logit (C.entropy's logits far apart)
and each update's TD errors read against the log's first and last Q-values (C.diagnose_rules' small buffer whose first
and last Q-values are far larger). Final grading and the students' checker fail each; the reference keeps full marks."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.c_diagnosis import boundary, fresh, lines, oracle, pieces, run_plan
from tests.support.grading import copy_reference, grade_checks, write_submission
from tests.support.mutations import generate
from tests.support.student_bundle import kit_result
from tests.support.survivors import graded_rows

PUBLIC = load_course(paths.COURSE_FILE, private=False).seeds.public
SEEDS = [4_000_000_000, 17, 123_456_789, *PUBLIC]


def generated(prefix: str, change: str, text: str):
    """The one generated mutant of C whose id starts with ``prefix``, whose change is ``change`` and whose source
    holds ``text``."""
    [mutant] = [m for m in generate("C") if m.id.startswith(prefix) and m.change == change and text in m.source]
    return mutant


def shift_by_smallest():
    return generated("C.policy_entropy.", "z.max -> z.min", "z = z - z.min(axis=1, keepdims=True)")


def other_updates_q():
    return generated("C.diagnose.", "now -> now - 1", 'td_error_stats(log["td_errors"][now], q[(now - 1)])')


def entropy_shifted_by_smallest(logits) -> np.ndarray:
    """The mutant's policy_entropy."""
    z = np.asarray(logits, float)
    z = z - z.min(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    p = np.exp(logp)
    return -np.sum(np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0), axis=1)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_entropy_cases_end_with_logits_far_apart_where_only_the_shift_by_the_largest_holds(seed):
    cases = list(pieces.entropy_logits_cases(seed))
    assert [kind for kind, _ in cases][-1] == "far apart"
    with np.errstate(all="ignore"):
        departs = [not np.allclose(entropy_shifted_by_smallest(z), oracle.entropy_nats(z)) for _, z in cases]
    assert departs == [False] * (len(cases) - 1) + [True]
    kind, z = cases[-1]
    assert oracle.entropy_nats(z[:2]) == pytest.approx([0.5822031, 0.5822031])  # [1000, 999, 0] and [-inf, 1, 2]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("secret", [None, "a secret"])
def test_the_boundary_logs_drawn_first_keep_their_order_and_the_added_one_moves(seed, secret):
    order = boundary.plan(seed, secret)
    first = [b for b in order if b in boundary.BOUNDARIES[:boundary.FIRST_DRAWN]]
    rng = np.random.default_rng([seed, 15_077, *run_plan.secret_words(secret)])
    assert first == [boundary.BOUNDARIES[i] for i in rng.permutation(boundary.FIRST_DRAWN)]
    assert sorted(b.name for b in order) == sorted(b.name for b in boundary.BOUNDARIES)
    places = {boundary.plan(s, secret).index(boundary.BOUNDARIES[-1]) for s in range(40)}
    assert len(places) > 3  # no fixed place: the order tells nothing


@pytest.mark.parametrize("seed", PUBLIC)
def test_the_far_ended_small_buffer_spikes_exactly_and_its_first_and_last_q_values_are_far_larger(seed):
    far = boundary.BOUNDARIES[-1]
    base = {(run.label, run.severity): log for run, log in zip(run_plan.fresh_plan(seed),
                                                                 fresh.unbundle(fresh.fresh_logs(seed)))}
    log = boundary.build(far, base[far.base])
    q = np.abs(boundary.taken_q(log))
    assert lines.worst_late_td(log) == pytest.approx(far.spike)
    assert q[-1] == pytest.approx(q[0]) and q[0] > far.far_ends / 2 * np.median(q)
    assert boundary.LESSONS[far.name]


def test_an_entropy_shifted_by_the_smallest_logit_fails_c_entropy_and_the_reference_passes(course):
    row = graded_rows(shift_by_smallest(), course, "public", ["C.entropy"])["C.entropy"]
    assert not row["passed"] and row["score"] == 0, row["message"]
    assert "far apart logits" in row["message"], row["message"]
    reference = grade_checks(paths.SOLUTIONS, course, ["C.entropy"])["C.entropy"]
    assert reference["passed"] and reference["score"] == reference["max_score"], reference["message"]


@pytest.mark.parametrize("seed", PUBLIC)
def test_td_errors_read_against_other_updates_q_values_label_the_far_ended_small_buffer_healthy(seed, tmp_path):
    module = tmp_path / "diagnostics.py"
    module.write_text(other_updates_q().source, encoding="utf-8")
    namespace: dict = {"__name__": "mutant_diagnostics", "__file__": str(module)}
    exec(compile(module.read_text(encoding="utf-8"), str(module), "exec"), namespace)  # noqa: S102 - the mutant
    far = boundary.BOUNDARIES[-1]
    base = {(run.label, run.severity): log for run, log in zip(run_plan.fresh_plan(seed),
                                                                 fresh.unbundle(fresh.fresh_logs(seed)))}
    assert namespace["diagnose"](boundary.build(far, base[far.base])) == "healthy"


def test_td_errors_read_against_other_updates_q_values_fail_c_diagnose_rules_and_the_reference_passes(course):
    rows = graded_rows(other_updates_q(), course, "public", ["C.fresh_runs", "C.diagnose_rules"])
    row = rows["C.diagnose_rules"]
    assert not row["passed"] and row["score"] == 0, row["message"]
    far_ended = {"log": boundary.BOUNDARIES[-1].name, "truth": "small_replay_buffer", "label": "healthy"}
    assert far_ended in row["details"]["logs"], row["details"]  # the log built for it, whatever the message says first
    reference = grade_checks(paths.SOLUTIONS, course, ["C.fresh_runs", "C.diagnose_rules"])["C.diagnose_rules"]
    assert reference["passed"] and reference["score"] == reference["max_score"], reference["message"]


@pytest.fixture(scope="module")
def c_kit(tmp_path_factory):
    from autograder.student_kit import build

    return build(paths.KIT_ROOT, tmp_path_factory.mktemp("survivors") / "kit", ["C"])


def checked(kit, tmp_path, mutant, check: str) -> dict:
    """The students' checker's result on ``check`` for the reference (``mutant`` None) or the mutant."""
    root = copy_reference(tmp_path, "C_diagnosis")
    if mutant is not None:
        write_submission(root, mutant.source, mutant.folder, mutant.module)
    with np.errstate(all="ignore"):  # the mutant's exp overflows, as it is meant to
        return kit_result(kit, root, "C", check)


@pytest.mark.parametrize("mutant, check", [(shift_by_smallest, "C.entropy"), (other_updates_q, "C.diagnose_rules")],
                         ids=["entropy-shifted-by-the-smallest-logit", "td-against-other-updates-q"])
def test_the_students_checker_fails_each_and_passes_the_reference(c_kit, tmp_path, mutant, check):
    result = checked(c_kit, tmp_path / "mutant", mutant(), check)
    assert result["fraction"] < 1 and result.get("spread") is None, result["message"]
    reference = checked(c_kit, tmp_path / "reference", None, check)
    assert reference["fraction"] == 1, reference["message"]
