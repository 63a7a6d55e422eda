"""C.diagnose_rules grades the same way on any draw of grading seeds: every statistic a README rule reads of a log at
the lines is the same number on every seed, so a wrong line or a wrong order of the rules labels each log alike
whichever runs the seed trained. Graded on unusual, unsorted seeds (each trains its fresh runs once)."""

import numpy as np
import pytest

from autograder.projects.c_diagnosis import oracle
from autograder.projects.c_diagnosis.boundary import BOUNDARIES, build, late, late_variance, relative
from autograder.projects.c_diagnosis.fresh import fresh_logs, unbundle
from autograder.projects.c_diagnosis.lines import LATE_TD
from autograder.projects.c_diagnosis.run_plan import fresh_plan

pytestmark = pytest.mark.slow  # trains each seed's fresh runs

SEEDS = [4_000_000_000, 17, 2**32 - 1]


def read_by_the_rules(log: dict) -> tuple[float, ...]:
    """What the README's rules read of a log: a policy's mean entropy per update, its critic's explained variance
    late and whole; a DQN's relative TD error of each late update (sorted) and of the log pooled."""
    updates = [log["update"] == u for u in np.unique(log["update"])]
    if "logits" in log:
        entropies = [float(oracle.entropy_nats(log["logits"][m]).mean()) for m in updates]
        return (min(entropies), max(entropies), late_variance(log),
                oracle.explained_variance(log["values"], log["returns"]))
    late_ones = sorted(relative(log, m) for m in updates if late(log)[m].all())
    return (late_ones[-1], relative(log, late(log)), relative(log, log["update"] >= 0))


@pytest.fixture(scope="module")
def read():
    """Per seed, per boundary log (in BOUNDARIES' order), what the rules read."""
    out = {}
    for seed in SEEDS:
        base = {(run.label, run.severity): log for run, log in zip(fresh_plan(seed), unbundle(fresh_logs(seed)))}
        out[seed] = [read_by_the_rules(build(b, base[b.base])) for b in BOUNDARIES]
    return out


def test_every_policy_log_sets_entropy_and_late_variance_and_each_dqn_log_its_late_updates(read):
    for b, values in zip(BOUNDARIES, read[SEEDS[0]]):
        if len(values) == 4:
            assert np.allclose(values[:3], [b.entropy, b.entropy, b.variance]), b.name
            if b.whole_variance is not None:
                assert np.isclose(values[3], b.whole_variance), b.name
        else:
            assert values[0] >= LATE_TD.fault or values[0] <= LATE_TD.healthy, b.name


@pytest.mark.parametrize("index", range(len(BOUNDARIES)), ids=[b.name for b in BOUNDARIES])
def test_a_log_at_the_lines_reads_the_same_on_every_seed(read, index):
    """The statistics the rules decide on, seed by seed: the whole run's explained variance of a log that does not set
    it, and a spike log's pooled errors, are the run's own (no README rule reads them alone)."""
    b = BOUNDARIES[index]
    rows = [read[seed][index] for seed in SEEDS]
    if len(rows[0]) == 4:  # a policy's log
        compared = [row[:4] if b.whole_variance is not None else row[:3] for row in rows]
    elif b.loud_start is not None:  # every update after the first third set: each late one and the whole pooled
        compared = rows
    else:  # a spike log: its loudest late update and the late half pooled
        compared = [row[:2] for row in rows]
    assert np.allclose(compared, compared[0], rtol=0, atol=1e-9), (b.name, compared)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_dqn_log_at_the_lines_has_td_errors_that_cancel_within_every_update(seed):
    """A `diagnose` that averages TD errors with their sign reads every update of a DQN's log at the lines as quiet
    (so labels the spiking buffers healthy) on every seed, not on the seeds whose run happened to err one way."""
    base = {(run.label, run.severity): log for run, log in zip(fresh_plan(seed), unbundle(fresh_logs(seed)))}
    for b in BOUNDARIES:
        log = build(b, base[b.base])
        if "q_values" not in log:
            continue
        for u in np.unique(log["update"]):
            td = log["td_errors"][log["update"] == u]
            assert abs(td.sum()) <= 1e-9 * np.abs(td).sum(), (b.name, u)
