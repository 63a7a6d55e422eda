"""The early audits' outcomes belong to the grading run that made them: grading makes one ``GradingRun`` per
submission, holding that submission's budget, and hands it to each check's ``on_shard`` and ``judge`` in their
context; a check judged alone is handed none and replays every run itself. (The audits themselves, and what the
budget does to them: tests/projects/a_ppo/test_steering.py and test_proof_of_learning.py.)"""

from autograder import paths
from autograder.checks import Context, Verdict
from autograder.loader import load_course
from autograder.grading import _early, judged
from autograder.plan import planned
from autograder.grading_run import GradingRun
from autograder.projects._shared.audits import digest, kept_or_replayed
from autograder.sandbox.runner import ChildRun
from autograder.status import Status


class Audited:
    id = "X.bar"

    def __init__(self):
        self.handed = []

    def on_shard(self, data, ctx):
        self.handed.append(ctx.grading)


def test_on_shard_is_handed_the_grading_run():
    check, cache = Audited(), GradingRun()
    _early(check, ChildRun(Status.OK, 0.0, {"runs": []}), Context((1,), "public", None, grading=cache))
    assert check.handed == [cache]


def test_the_judge_is_handed_the_grading_run_and_none_when_judged_alone(monkeypatch):
    course = load_course(paths.COURSE_FILE, private=False)
    item, handed, cache = planned(course, "D", "D.weights", "public"), [], GradingRun()

    def judge(self, data, ctx):
        handed.append(ctx.grading)
        return Verdict(1.0, "")

    monkeypatch.setattr(type(item.check), "judge", judge)
    judged(item, ChildRun(Status.OK, 0.0, {}), course, grading=cache)
    judged(item, ChildRun(Status.OK, 0.0, {}), course)
    assert handed == [cache, None]


def test_without_a_kept_outcome_the_run_is_replayed_and_a_kept_one_is_used_once():
    replays = []

    def replay(run_, seed, bar):
        replays.append(seed)
        return [("episode", seed)], None

    cache = GradingRun()
    cache.kept[digest({}, 1, {}, replay)] = ([("kept", 1)], None)  # as a finished audit process leaves it
    assert kept_or_replayed(cache, {}, 1, {}, replay) == ([("kept", 1)], None) and replays == []
    assert kept_or_replayed(cache, {}, 1, {}, replay) == ([("episode", 1)], None) and replays == [1]
    assert kept_or_replayed(None, {}, 2, {}, replay) == ([("episode", 2)], None) and replays == [1, 2]
