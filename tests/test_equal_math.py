"""Equal math, equal grade: code that computes the chapter's quantities in another order, or differs only where no
batch ever looks, keeps its points. Each variant below is correct; the planted bugs in each project's
``tests/projects/<id>/mutants.py`` show that the same checks still fail wrong code."""

import pytest

from autograder import paths
from tests.support.grading import copy_reference, grade_checks, mutate, write_submission

FOLDER = paths.SOLUTIONS / "B_ablations"
DETAILS = (FOLDER / "details.py").read_text()

LINSPACE_LR = mutate(DETAILS, "return config.lr * (1 - update / n_updates) if details.anneal_lr else config.lr",
                     "return float(np.linspace(config.lr, 0, n_updates, endpoint=False)[update]) "
                     "if details.anneal_lr else config.lr")
# the same step size, nudged by one float32 unit in the last place: what another CPU's rounding can do
NUDGED_LR = mutate(DETAILS, "return config.lr * (1 - update / n_updates) if details.anneal_lr else config.lr",
                   "return config.lr * (1 - update / n_updates) * (1 + 2 ** -23) if details.anneal_lr "
                   "else config.lr * (1 + 2 ** -23)")
# without the bootstrap on time-outs: V(s_{t+1}) after a truncation zeroed, rather than the step counted as terminal.
# Equal on every step a rollout marks valid; only the reset step after the time-out, which no batch holds, differs.
ZEROED_TIMEOUT_VALUE = mutate(
    DETAILS, "    terminated = segment.terminated if details.bootstrap_truncation else segment.terminated | "
             "segment.truncated\n    return gae(segment.rewards, segment.values, terminated, segment.truncated, "
             "config.gamma, config.lam)\n",
    "    values = segment.values.copy()\n"
    "    if not details.bootstrap_truncation:\n"
    "        values[1:][segment.truncated] = 0.0\n"
    "    return gae(segment.rewards, values, segment.terminated, segment.truncated, config.gamma, config.lam)\n")


@pytest.mark.parametrize("source", [LINSPACE_LR, NUDGED_LR, ZEROED_TIMEOUT_VALUE],
                         ids=["linspace_lr", "nudged_lr", "zeroed_timeout_value"])
def test_an_equal_computation_keeps_the_defaults_and_the_switches(tmp_path, course, source):
    root = copy_reference(tmp_path, "B_ablations")
    write_submission(root, source, "B_ablations", "details.py")
    checks = grade_checks(root, course, ["B.defaults", "B.switches"])
    assert {cid: (c["score"], c["message"]) for cid, c in checks.items() if not c["passed"]} == {}
