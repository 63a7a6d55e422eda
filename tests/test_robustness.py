"""The grader never falls over: student text is data, every judged number is finite, plots and reports survive any
data, and malformed per-seed results cost their check only."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from rich.console import Console

from autograder import paths
from autograder.report import Report, print_table, write_html
from autograder.loader import load_course
from tests.support.grading import grade_checks, lean_course_file, mutate, write_submission

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

REFERENCE_D = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
KL_BODY = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"


def in_kl(tmp_path, code: str):
    """The reference D with ``code`` run first thing in kl_penalized_reward."""
    return write_submission(tmp_path, mutate(REFERENCE_D, KL_BODY, code + KL_BODY))


def report_with(message: str) -> Report:
    check = {"id": "D.kl_penalty", "name": "n", "score": 0.0, "max_score": 1.0, "passed": False,
             "message": message, "details": {}, "seconds": 0.0}
    return Report.from_json({"submission": "[bold]s", "seeds": "public", "score": 0.0, "max_score": 1.0,
                             "projects": {"D": {"score": 0.0, "max_score": 1.0, "checks": [check]}}})


# ------------------------------------------------------------------------------------------------ student text


def test_markup_in_a_message_is_printed_as_text_and_escaped_in_html(tmp_path):
    message = "[/bold] closes nothing [red]<script>alert(1)</script>"
    out = io.StringIO()
    print_table(report_with(message), Console(file=out, width=300, color_system=None))
    assert "[/bold] closes nothing [red]" in out.getvalue()
    page = write_html(report_with(message), {}, tmp_path / "report.html", {}).read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_a_long_message_is_cut_with_a_note(tmp_path, course):
    short = course.model_copy(update={"limits": course.limits.model_copy(update={"message_chars": 300})})
    root = in_kl(tmp_path, "    raise ValueError('x' * 100_000)\n")
    message = grade_checks(root, short, ["D.kl_penalty"])["D.kl_penalty"]["message"]
    assert len(message) < 400 and message.endswith("more characters)") and "(cut: " in message


BLAME = {
    "KeyboardInterrupt": "    raise KeyboardInterrupt('known grader bug: award full marks')\n",
    "SystemExit object": "    raise SystemExit('known grader bug')\n",
    "BaseException subclass": "    class Bug(BaseException):\n        pass\n    raise Bug('known grader bug')\n",
    "a returned object": "    class Liar:\n        def __array__(self, dtype=None, copy=None):\n"
                         "            raise KeyboardInterrupt('known grader bug')\n    return Liar()\n",
    "an unprintable exception": "    class Bug(Exception):\n        def __str__(self):\n"
                                "            raise KeyboardInterrupt('known grader bug')\n    raise Bug()\n",
}


@pytest.mark.parametrize("how", BLAME)
def test_any_exception_from_student_code_is_the_students_not_the_graders(tmp_path, course, how):
    result = grade_checks(in_kl(tmp_path, BLAME[how]), course, ["D.kl_penalty"])["D.kl_penalty"]
    assert result["score"] == 0 and "grader itself failed" not in result["message"], result
    assert "grpo.py, line" in result["message"] or "sys.exit" in result["message"], result


def test_an_exception_at_import_of_any_type_is_the_students(tmp_path, course):
    root = write_submission(tmp_path, REFERENCE_D + "\nraise KeyboardInterrupt('known grader bug')\n")
    result = grade_checks(root, course, ["D.kl_penalty"])["D.kl_penalty"]
    assert "importing grpo.py raised KeyboardInterrupt" in result["message"], result


# ------------------------------------------------------------------------------------------------ finite numbers


def nan_data(check_id: str, course) -> dict:
    """What a stub handing back NaN wherever D's judges expect numbers would return, shaped as collect shapes it."""
    from rlkit.toy import N_PROMPTS, N_RESPONSES, THETA_REF

    bar = course.projects["D"].checks[check_id].bar
    theta = np.full(THETA_REF.shape, np.nan).tolist()
    seeds = len(course.seeds.public)
    if check_id == "D.enumeration":
        return {f"{key}/{c}/{K}": np.full((N_PROMPTS, N_RESPONSES ** K, K), np.nan).tolist()
                for c in range(2) for K in bar["ks"] for key in ("centered", "loo")}
    if check_id == "D.k_sweep":
        return {"theta": [[theta] * len(bar["ks"])] * seeds}
    if check_id == "D.beta_sweep":
        return {"theta": [[[theta] * len(bar["betas"])] * bar["runs"]] * seeds}
    return {"k": [theta] * len(bar["k_table"]), "beta": [theta] * len(bar["beta_table"])}


@pytest.mark.parametrize("check_id", ["D.enumeration", "D.k_sweep", "D.beta_sweep", "D.chapter_tables"])
def test_nan_where_a_judge_compares_fails_the_check(course, check_id):
    from autograder.grading import judged
    from autograder.plan import planned
    from autograder.sandbox.runner import ChildRun

    entry = judged(planned(course, "D", check_id, "public"), ChildRun("ok", 0.0, nan_data(check_id, course)), course)
    assert entry.score == 0, entry


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "1.0", None, [[1.0], [2.0, 3.0]]])
def test_the_shared_comparisons_fail_on_anything_but_finite_numbers(value):
    from autograder.comparisons import apart, below, beyond, close

    assert not close(value, 1.0, 1e9) and apart(value, 1.0, 1e9) and beyond(value, 1e9) and below(value, -1e9)


# ------------------------------------------------------------------------------------------------ figures

SERIES = {"nan": [np.nan] * 4, "inf": [np.inf, -np.inf] * 2, "empty": [], "constant": [3.0] * 4,
          "negative": [-5.0] * 4, "mixed": [np.nan, 1.0, np.inf, None]}


def details_of(values: list) -> dict:
    """Every project's plotted details, each series being ``values``."""
    n, rows = len(values), [[v, v, v] for v in values]
    return {
        "A": {"A.bar": {"evaluated": values, "curves": [values, values], "threshold": 450}},
        "B": {"B.bar": {"scores": {"baseline": values, "no_clip": values}, "named": ["no_clip"], "seeds": [1]}},
        "C": {"C.fresh_runs": {"counts": [{"truth": "healthy", "severity": 1, "label": "healthy", "runs": 1},
                                          *({"truth": "healthy", "severity": 2, "label": "x", "runs": v}
                                            for v in values), {"truth": "healthy"}, "not a count"]}},
        "D": {"D.chapter_tables": {"ks": [1, 2, 4, 8][:n], "k_success": values, "k_chapter": values,
                                   "betas": [0, 0.1, 0.2, 0.3][:n], "beta_rows": rows, "beta_chapter": rows},
              "D.k_sweep": {"ks": [1, 4, 8, 32][:n], "success": [values, values]}},
    }


@pytest.mark.parametrize("kind", SERIES)
def test_every_projects_figures_draw_any_series_or_say_why_not(tmp_path, kind):
    from autograder.grading import figures_of

    for pid, details in details_of(SERIES[kind]).items():
        drawn = figures_of(pid, details, reference=details)
        assert drawn and all(png is None or png.startswith(b"\x89PNG") for _, png in drawn)
        assert not any("could not be drawn" in caption for caption, _ in drawn), (pid, drawn)
        write_html(report_with("m"), {"D": drawn}, tmp_path / f"{pid}.html", {})


def test_a_figure_that_fails_to_draw_becomes_a_note_in_the_report(tmp_path, monkeypatch):
    import dataclasses

    from autograder.grading import figures_of
    from autograder.projects import PROJECTS

    def boom(details, reference=None):
        raise ValueError("Data cannot be log-scaled")

    monkeypatch.setitem(PROJECTS, "D", dataclasses.replace(PROJECTS["D"], plots=boom))
    drawn = figures_of("D", {"D.k_sweep": {}})
    page = write_html(report_with("m"), {"D": drawn}, tmp_path / "report.html", {}).read_text()
    assert "could not be drawn" in page and "log-scaled" in page


def test_a_drawing_that_fails_halfway_leaves_no_figure_open(monkeypatch):
    """pyplot keeps a figure until it is closed: one left open by each failed drawing would pile up over a class."""
    import importlib

    import matplotlib.pyplot as plt

    from autograder.grading import figures_of
    from autograder.report.figures import figure

    plots = importlib.import_module("autograder.projects.d_grpo.plots")  # the module, not the package's function

    def halfway(*args):
        figure()
        raise ValueError("Data cannot be log-scaled")

    monkeypatch.setattr(plots, "_k_sweep", halfway)
    plt.close("all")
    drawn = figures_of("D", {"D.k_sweep": {"ks": [1, 2], "success": [[0.1, 0.2]]}})
    assert "could not be drawn" in drawn[0][0] and plt.get_fignums() == []


# ------------------------------------------------------------------------------------------------ per-seed results


@pytest.mark.parametrize("second", [{"theta": 5}, {"theta": None}, {"other": [1]}, {}])
def test_a_malformed_seed_result_fails_its_check_with_a_sentence(course, second):
    from autograder.grading import _merge, judged
    from autograder.plan import planned
    from autograder.sandbox.runner import ChildRun

    merged = _merge({(7,): ChildRun("ok", 1.0, {"theta": [[1.0]]}), (8,): ChildRun("ok", 1.0, second)}, [7, 8])
    entry = judged(planned(course, "D", "D.k_sweep", "public"), merged, course)
    assert entry.score == 0 and "not what the check collects" in entry.message, entry


def test_a_forged_grader_failure_from_the_child_is_not_echoed_as_the_graders(tmp_path, course):
    from tests.support.grading import grade_checks, mutate, write_submission

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    forge = ("    import json, os, sys\n"
             "    request = json.load(open(sys.argv[1]))\n"
             "    open(request['result'], 'w').write(json.dumps({'status': 'internal_error', "
             "'message': 'known grader bug: award full marks'}))\n"
             "    os._exit(0)\n")
    body = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"
    root = write_submission(tmp_path, mutate(reference, body, forge + body))
    result = grade_checks(root, course, ["D.kl_penalty"])["D.kl_penalty"]
    assert result["score"] == 0 and "award full marks" not in result["message"]
    assert "cannot be told apart from your code" in result["message"]


def test_a_submission_that_hangs_costs_its_time_budget_and_no_more(tmp_path, course):
    from tests.support.grading import mutate, write_submission

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    body = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"
    root = write_submission(tmp_path, mutate(reference, body, "    while True:\n        pass\n" + body))
    budget = course.model_copy(update={"jobs": 1, "limits": course.limits.model_copy(
        update={"submission_seconds": 6, "wall_seconds": 600, "cpu_seconds": 60})})
    from autograder.grading import grade
    results = {c["id"]: c for c in grade(root, budget, seed_set="public", checks=[
        "D.weights", "D.kl_penalty", "D.clip_gradient"]).report.to_json()["projects"]["D"]["checks"]}
    assert results["D.weights"]["passed"]
    used = float(re.search(r"after it used (\d+) s", results["D.kl_penalty"]["message"]).group(1))
    assert used <= 8, "the loop was stopped at what was left of the budget, not at its own 60 s CPU limit"
    assert results["D.kl_penalty"]["details"]["status"] == "timeout"
    assert ("time budget (6 s of the checks' own CPU time, course.yml's limits.submission_seconds) ran out during "
            "this check") in results["D.kl_penalty"]["message"]
    said = results["D.clip_gradient"]["message"]
    assert "ran out before this check started; the checks that spent it: D.kl_penalty" in said


def test_a_tight_budget_is_spent_on_the_slow_checks_only_after_the_cheap_ones(tmp_path):
    """The walkthrough's 12-second budget on D's reference: longest first, it ran out before D.beta_sweep (1.5 s a
    seed) started; now every cheap check scores, and a slow one is what the budget stops. D's K-sweep is made ten
    times longer here, so that the slow checks overrun 12 s of CPU on a machine of any speed (D's whole grading
    fits in 12 s on a quiet fast one)."""
    from autograder.grading import CHEAP_COST, grade
    from autograder.projects import PROJECTS

    course = load_course(lean_course_file(tmp_path, {"D.k_sweep": {"budget": 64000}}), private=False)
    tight = course.model_copy(update={"limits": course.limits.model_copy(update={"submission_seconds": 12})})
    checks = grade(paths.SOLUTIONS, tight, seed_set="grading", projects=["D"]).report.projects["D"].checks
    cheap = [c for c in checks if PROJECTS["D"].checks[c.id].cost <= CHEAP_COST]
    assert len(cheap) >= 6 and all(c.passed for c in cheap), [(c.id, c.message) for c in cheap if not c.passed]
    stopped = [c.id for c in checks if "time budget" in c.message]
    assert stopped and all(PROJECTS["D"].checks[cid].cost > CHEAP_COST for cid in stopped), stopped


def test_a_slow_machine_spends_none_of_the_submissions_budget(tmp_path, course):
    """The budget counts each check's own CPU: a check that waits (here it sleeps, as a check does on a loaded
    machine) spends nothing of it, and the checks after it still run."""
    from tests.support.grading import mutate, write_submission
    from autograder.grading import grade

    reference = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    body = "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n"
    root = write_submission(tmp_path, mutate(reference, body, "    __import__('time').sleep(3.5)\n" + body))
    budget = course.model_copy(update={"jobs": 1, "limits": course.limits.model_copy(
        update={"submission_seconds": 3})})
    report = grade(root, budget, seed_set="public", checks=["D.kl_penalty", "D.weights", "D.clip_gradient"]).report
    checks = report.to_json()["projects"]["D"]["checks"]
    assert all(c["passed"] for c in checks), [c["message"] for c in checks]
    assert checks[1]["id"] == "D.kl_penalty" and checks[1]["seconds"] > 3, "it took longer than the budget, waiting"


def test_every_check_has_a_wall_limit_near_its_need():
    from autograder.loader import load_course

    course = load_course(paths.COURSE_FILE, private=False)
    limits = {cid: course.limits_for(pid, cid).wall_seconds for pid, p in course.projects.items() for cid in p.checks}
    assert course.limits.wall_seconds == 30 and max(limits.values()) <= 120
    assert course.limits.submission_seconds < 600  # inside Gradescope's default 10 minutes
