"""The details a project's figures draw from are declared beside the check's ``Bar``, as a ``Details`` model: every
check a figure reads declares one, the figures read no key it does not declare, and a judge whose details are not
what it declares is the grader's failure (an internal error), never the student's and never a silent figure gap.

Cheap: judges are called on crafted data (D's on thetas, C's on the planned runs' labels); A's and B's judges audit
whole training runs, so their details are checked in the shape their judges write them (their reference tests grade
the real ones, through the same check at the verdict)."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.checks import Context, UndeclaredDetails, Verdict, declared
from autograder.grading import judged
from autograder.plan import planned
from autograder.projects import PROJECTS
from autograder.projects.c_diagnosis import run_plan
from autograder.sandbox.runner import ChildRun
from rlkit.toy import THETA_REF

NAN = float("nan")


class Asked(dict):
    """A dict that notes every key read from it."""

    def __init__(self, values: dict, asked: set):
        super().__init__(values)
        self.asked = asked

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)


def read_by_figures(pid: str, details: dict) -> tuple[set, dict[str, set]]:
    """The check ids project ``pid``'s figures ask for, and the keys they read of each check's details."""
    asked, keys = set(), {cid: set() for cid in details}
    PROJECTS[pid].plots(Asked({cid: Asked(d, keys[cid]) for cid, d in details.items()}, asked),
                        reference=Asked({cid: Asked(d, keys[cid]) for cid, d in details.items()}, asked))
    return asked, keys


def judged_details(course, pid: str, cid: str, data: dict) -> dict:
    """The details ``cid``'s judge writes on ``data``, with the bar and seeds of the course."""
    item = planned(course, pid, cid, "public")
    return item.check.judge(data, item.context).details


@pytest.fixture(scope="module")
def written(course) -> dict[str, list[dict]]:
    """Details of each plotted check as its judge writes them (B.bar in both of its shapes)."""
    def thetas(n_settings: int, n_seeds: int) -> list:
        return [[THETA_REF.tolist()] * n_settings for _ in range(n_seeds)]

    bars = {cid: planned(course, "D", cid, "public").context for cid in ("D.k_sweep", "D.beta_sweep")}
    seeds = len(bars["D.k_sweep"].seeds)
    tables = planned(course, "D", "D.chapter_tables", "public").context.bar
    check = PROJECTS["C"].checks["C.fresh_runs"]
    fresh = check.judge({"labels": ["healthy" for _ in run_plan.fresh_plan(7, None)]},
                        Context((7,), "public", check.Bar.model_validate({})))
    return {
        "A.bar": [{"evaluated": [480.0, 0.0], "median": 240.0, "training_tail": [470.5, NAN],
                   "curves": [[None, 20.0, 480.0], [None, None, None]], "threshold": 450.0}],
        "B.bar": [{"scores": {"baseline": [200.0, NAN], "no_clip": [120.0, 130.0]}, "named": ["no_clip"],
                   "factors": {"no_clip": {"change": -80.0, "spread": 10.0, "matters": True}}, "seeds": "seeds [1]"},
                  {"departed": 2}],
        "C.fresh_runs": [fresh.details],
        "D.chapter_tables": [judged_details(course, "D", "D.chapter_tables",
                                            {"k": [THETA_REF.tolist()] * len(tables.k_table),
                                             "beta": [THETA_REF.tolist()] * len(tables.beta_table)})],
        "D.k_sweep": [judged_details(course, "D", "D.k_sweep",
                                     {"theta": thetas(len(bars["D.k_sweep"].bar.ks), seeds)})],
        "D.beta_sweep": [judged_details(course, "D", "D.beta_sweep",
                                        {"theta": [thetas(len(bars["D.beta_sweep"].bar.betas),
                                                          bars["D.beta_sweep"].bar.runs)] * seeds})],
    }


def check_of(cid: str):
    return PROJECTS[cid.split(".")[0]].checks[cid]


PLOTTED = ["A.bar", "B.bar", "C.fresh_runs", "D.chapter_tables", "D.k_sweep", "D.beta_sweep"]


@pytest.mark.parametrize("pid", [pid for pid, project in PROJECTS.items() if project.plots])
def test_every_check_a_figure_reads_declares_its_details_and_the_figures_read_no_other_key(pid, written):
    details = {cid: shapes[0] for cid, shapes in written.items() if cid.startswith(f"{pid}.")}
    asked, keys = read_by_figures(pid, details)
    assert asked, f"project {pid}'s figures read no check's details"
    for cid in asked:
        model = check_of(cid).Details
        assert model is not None, f"{cid}: its details are drawn, so its check declares them (class Details)"
        assert keys.get(cid, set()) <= set(model.model_fields), (cid, keys[cid] - set(model.model_fields))
    assert asked <= set(PLOTTED)


@pytest.mark.parametrize("cid", PLOTTED)
def test_the_details_a_judge_writes_are_what_its_check_declares_and_are_kept_as_written(cid, written):
    for details in written[cid]:
        verdict = Verdict(1.0, "", details)
        assert declared(check_of(cid), verdict) is verdict and verdict.details is details  # the report is unchanged


@pytest.mark.parametrize("cid", PLOTTED)
def test_details_missing_a_declared_key_or_holding_a_planted_one_are_refused(cid, written):
    check = check_of(cid)
    for details in written[cid]:
        for key in details:
            with pytest.raises(UndeclaredDetails, match=cid):
                declared(check, Verdict(1.0, "", {k: v for k, v in details.items() if k != key}))
        with pytest.raises(UndeclaredDetails, match="planted"):
            declared(check, Verdict(1.0, "", {**details, "planted": 1.0}))
        key = next(iter(details))
        with pytest.raises(UndeclaredDetails, match=key):
            declared(check, Verdict(1.0, "", {**details, key: "not what it declares"}))


def test_a_judge_writing_undeclared_details_is_the_graders_failure_never_the_students(course, monkeypatch):
    """The attack on the grader's own code: a judge that spells a key its figure reads wrongly must not pass unseen
    (the figure would just go blank). The check is reported as the grader's internal error, naming the key."""
    from autograder.status import Status

    check = PROJECTS["D"].checks["D.k_sweep"]
    monkeypatch.setattr(check, "judge", lambda data, ctx: Verdict(1.0, "fine", {"ks": [1, 4], "sucess": [[0.5]]}))
    entry = judged(planned(course, "D", "D.k_sweep", "public"), ChildRun(Status.OK, 0.0, {"theta": []}), course)
    assert entry.status == Status.INTERNAL_ERROR and entry.score == 0
    assert "grader itself failed" in entry.message and "success" in entry.message and "sucess" in entry.message


def test_figures_read_details_as_written_even_partly_kept(written):
    """A report on the grading seeds keeps only ``grader_details``: the figures read what is there by the declared
    names, and a missing name is None."""
    kept = {k: v for k, v in written["A.bar"][0].items() if k in ("curves", "threshold")}
    drawn = check_of("A.bar").Details.drawn(kept)
    assert drawn.curves == kept["curves"] and drawn.evaluated is None
    assert check_of("A.bar").Details.drawn({}) is None and check_of("A.bar").Details.drawn("text") is None
    assert np.isnan(check_of("B.bar").Details.model_validate(written["B.bar"][0]).scores["baseline"][1])
