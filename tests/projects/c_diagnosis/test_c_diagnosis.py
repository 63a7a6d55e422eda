"""Project C end to end: the reference earns every point, stubs none; logs name no fault; each student's set is
decided by their id and the course secret; the secret lives only in the private overlay."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from autograder.checks import Context
from autograder.cli import main
from autograder.config import CourseError
from autograder.loader import load_course
from autograder.grading import grade
from autograder.projects import PROJECTS
from autograder.projects.c_diagnosis import boundary, fresh, run_plan
from tests.support.grading import grade_in_a_fresh_process, without_timing

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out


# Every test here grades with the bundled grading seeds, as the planted bugs do, so one session trains the fresh runs
# once (the grader keeps them for the life of its process).


@pytest.fixture(scope="module")
def reference_report(graded_reference):
    return graded_reference("C")


def test_the_reference_earns_full_marks_on_the_grading_seeds(reference_report, course):
    failed = [(c["id"], c["message"]) for c in reference_report["projects"]["C"]["checks"] if not c["passed"]]
    assert failed == []
    counts = next(c for c in reference_report["projects"]["C"]["checks"] if c["id"] == "C.fresh_runs")["details"]
    assert sum(c["runs"] for c in counts["counts"]) == len(run_plan.AGENTS) * len(course.seeds.grading)
    assert {(c["truth"], c["severity"]) for c in counts["counts"]} == set(run_plan.AGENTS)
    assert all(c["label"] == c["truth"] for c in counts["counts"])


def test_the_report_draws_the_fresh_runs_counts(reference_report):
    details = {c["id"]: c["details"] for c in reference_report["projects"]["C"]["checks"]}
    figures = PROJECTS["C"].plots(details)
    assert len(figures) == 1 and figures[0][1].startswith(b"\x89PNG")


def _fresh_runs_report(secret: str | None, labelled) -> tuple:
    """What a student sees of C.fresh_runs (message, details, figure captions and images) for the runs of public seed
    7 under ``secret``, each labelled ``labelled(run)``."""
    check = PROJECTS["C"].checks["C.fresh_runs"]
    ctx = Context((7,), "public", check.Bar.model_validate({}), secret=secret)
    verdict = check.judge({"labels": [labelled(run) for run in run_plan.fresh_plan(7, secret)]}, ctx)
    return verdict.fraction, verdict.message, verdict.details, PROJECTS["C"].plots({"C.fresh_runs": verdict.details})


@pytest.mark.parametrize("labelled", [lambda run: "healthy", lambda run: run.label,
                                      lambda run: "healthy" if run.severity == 1 else run.label],
                         ids=["always healthy", "all right", "mild ones missed"])
def test_nothing_a_student_sees_of_the_fresh_runs_tells_which_run_was_which(labelled):
    """The attack: a diagnose that always says "healthy" read the 24 runs' truths by position off its first report
    (details and figure captions) and hard-coded them. The same runs in another order, labelled alike, must give
    the same report to the byte: then nothing in it depends on which call of diagnose was which run."""
    orders = [[(run.label, run.severity) for run in run_plan.fresh_plan(7, secret)]
              for secret in (None, "another course")]
    assert orders[0] != orders[1]
    first, second = (_fresh_runs_report(secret, labelled) for secret in (None, "another course"))
    assert first == second


def test_pristine_stubs_score_zero_with_not_implemented_messages(tmp_path, course):
    out, no_overlay = tmp_path / "r.json", tmp_path / "bundled.yml"
    no_overlay.write_text(f"seeds: {{grading: {course.seeds.grading}}}\n")
    assert main(["grade", str(paths.ASSIGNMENTS), "--projects", "C", "--seeds", "grading", "--private", str(no_overlay),
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["score"] == 0
    assert all("is not implemented yet" in c["message"] for c in report["projects"]["C"]["checks"])


def test_logs_name_no_fault_and_differ_in_length_not_in_fields(course):
    logs = fresh.unbundle(fresh.fresh_logs(course.seeds.grading[0]))
    fields = {("q_values" in log): set(log) for log in logs}
    for log in logs:
        assert set(log) == fields["q_values" in log]  # a faulty agent's log has the healthy one's fields
        assert not any(word in key for key in log for word in ("fault", "buffer", "capacity", "gain", "lr", "label"))
        assert all(value.dtype.kind in "fiub" for value in log.values())  # numbers only, no names
    assert len({len(log["update"]) for log in logs}) > 1


def test_fresh_runs_are_trained_once_per_course_and_machine(tmp_path):
    """A second grader process finds the runs the first one trained; a damaged bundle is trained again."""
    script = ("import sys, time; from autograder.projects.c_diagnosis import fresh; t = time.process_time(); "
              "p = fresh.fresh_logs(11, 'a secret'); print(p, len(fresh.unbundle(p)))")
    env = {**os.environ, "AUTOGRADER_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(paths.KIT_ROOT)}

    def in_a_new_process() -> tuple[str, os.stat_result]:
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        path, count = out.stdout.split()
        assert count == "8"
        return path, Path(path).stat()

    first, made = in_a_new_process()
    again, kept = in_a_new_process()
    assert again == first and kept.st_mtime_ns == made.st_mtime_ns  # read, not trained again
    # named by an HMAC alone: neither the seed nor the secret can be read off the name (a hex digest may hold "11")
    assert re.fullmatch(r"runs_[0-9a-f]{32}\.npz", Path(first).name) and Path(first).parent.stat().st_mode & 0o077 == 0
    Path(first).write_bytes(b"not an npz")
    remade, fixed = in_a_new_process()
    assert remade == first and fixed.st_size > 1000


def test_fresh_runs_differ_with_the_seed_and_their_order_is_shuffled():
    assert [r.label for r in run_plan.fresh_plan(7)] != [r.label for r in run_plan.fresh_plan(8)]
    assert {r.seed for r in run_plan.fresh_plan(7)}.isdisjoint({r.seed for r in run_plan.fresh_plan(8)})
    # the course secret moves the order and the runs, so code that knows the seed cannot recompute the truth
    one, another = run_plan.fresh_plan(7, "one secret"), run_plan.fresh_plan(7, "another")
    assert {r.seed for r in one}.isdisjoint({r.seed for r in another})


def test_each_students_set_is_decided_by_their_id_and_the_secret():
    alice = run_plan.student_set(run_plan.student_key("alice", "s3cret", 0))
    assert alice == run_plan.student_set(run_plan.student_key("alice", "s3cret", 0))
    assert sorted(r.label for r in alice.values()) == sorted(run_plan.FAULTS)
    keys = {run_plan.student_key(s, "s3cret", 0) for s in ("alice", "bob", "carol")}
    assert len(keys) == 3 and run_plan.student_key("alice", "other", 0) not in keys
    orders = {tuple(r.label for r in run_plan.student_set(run_plan.student_key(f"s{i}", "x", 0)).values())
              for i in range(40)}
    assert len(orders) == 6  # every assignment of the three faults to the three names occurs


def test_own_labels_are_judged_against_the_students_own_set(course):
    check = PROJECTS["C"].checks["C.own_labels"]
    bar = check.Bar.model_validate(course.projects["C"].checks["C.own_labels"].bar)
    truth = {name: run.label for name, run in run_plan.student_set(run_plan.student_key("alice", "k", 0)).items()}
    as_alice = Context((7,), "grading", bar, student="alice", secret="k")
    assert check.judge({"labels": truth}, as_alice).fraction == 1.0
    as_bob = Context((7,), "grading", bar, student="bob", secret="k")  # bob's set differs from alice's under "k"
    assert check.judge({"labels": truth}, as_bob).fraction < 1.0


def test_the_verdict_on_ones_own_agents_says_how_many_are_wrong_never_which(course):
    """The attack: resubmit after each report, keeping the labels it did not name as wrong. The message and details
    must be the same whichever agents are the wrong ones, when as many are."""
    check = PROJECTS["C"].checks["C.own_labels"]
    bar = check.Bar.model_validate(course.projects["C"].checks["C.own_labels"].bar)
    truth = {name: run.label for name, run in run_plan.student_set(run_plan.student_key("alice", "k", 0)).items()}
    as_alice = Context((7,), "grading", bar, student="alice", secret="k")
    shown = set()
    for wrong_one in run_plan.NAMES:
        labels = {**truth, wrong_one: "healthy"}
        verdict = check.judge({"labels": labels}, as_alice)
        shown.add((verdict.fraction, verdict.message, json.dumps(verdict.details)))
    assert len(shown) == 1


def test_the_bundled_example_logs_are_the_example_set(course):
    bar = course.projects["C"].checks["C.own_labels"].bar
    example = run_plan.student_set(run_plan.student_key(None, None, bar["example_seed"]))
    for name, run in example.items():
        log = run_plan.load(paths.SOLUTIONS / "C_diagnosis" / "logs" / f"{name}.npz")
        assert ("q_values" in log) == (run.label == "small_replay_buffer")


def test_the_secret_may_come_only_from_the_private_overlay(tmp_path):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [5, 6]}\nsecret: long-random-text\n")
    assert load_course(private=overlay).secret == "long-random-text"
    overlay.write_text("seeds: {grading: [5, 6]}\nsecret: 12\n")
    with pytest.raises(CourseError, match="secret"):
        load_course(private=overlay)
    course_file = tmp_path / "course.yml"
    course_file.write_text(paths.COURSE_FILE.read_text() + "secret: in-the-open\n")
    with pytest.raises(CourseError, match="belongs in the private overlay"):
        load_course(course_file, private=False)


def test_writing_students_logs_needs_a_secret(tmp_path, capsys):
    plain = tmp_path / "private.yml"
    plain.write_text("seeds: {grading: [5, 6]}\n")
    assert main(["c-logs", "alice", "--out", str(tmp_path / "out"), "--private", str(plain)]) == 2
    assert "no course secret" in capsys.readouterr().err


def test_the_student_id_comes_from_gradescopes_metadata(tmp_path):
    from autograder.gradescope import submitter

    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"email": "e@x.org", "name": "E"}]}))
    assert submitter(tmp_path) == "e@x.org" and submitter(tmp_path / "nowhere") is None


def test_grade_all_grades_each_student_against_their_own_logs(tmp_path, course):
    """Alice's folder holds her own set; the verdict is right for her and wrong when filed as someone else's."""
    course = course.model_copy(update={"secret": "the course's own secret"})
    key = run_plan.student_key("alice", course.secret, 0)
    truth = {name: run.label for name, run in run_plan.student_set(key).items()}
    folder = tmp_path / "alice" / "C_diagnosis"
    folder.mkdir(parents=True)
    source = (paths.SOLUTIONS / "C_diagnosis" / "diagnostics.py").read_text()
    (folder / "diagnostics.py").write_text(source.replace(
        '    return {path.stem: diagnose(load_log(path)) for path in sorted(LOGS.glob("*.npz"))}',
        f"    return {truth!r}"))
    as_alice = grade(folder.parent, course, seed_set="public", checks=["C.own_labels"],
                     student="alice").report.to_json()
    assert as_alice["projects"]["C"]["checks"][0]["passed"]
    assert "student alice's own logs" in as_alice["projects"]["C"]["checks"][0]["message"]
    others = [s for s in ("bob", "carol", "dave", "erin")
              if run_plan.student_set(run_plan.student_key(s, course.secret, 0)) != run_plan.student_set(key)]
    as_other = grade(folder.parent, course, seed_set="public", checks=["C.own_labels"],
                     student=others[0]).report.to_json()
    assert not as_other["projects"]["C"]["checks"][0]["passed"]


def test_grading_without_a_student_id_says_it_used_the_example_logs(tmp_path, course, capsys):
    """`grade` without --student judges C.own_labels against the example logs: the table and the page say so."""
    assert main(["grade", str(paths.SOLUTIONS), "--projects", "C", "--seeds", "public", "--report",
                 str(tmp_path / "out")]) == 0
    table = "".join(ch for ch in capsys.readouterr().out if not ch.isspace() and ch not in "│┃")  # unwrapped
    assert "bundledexamplelogs" in table and "--studentID" in table
    page = (tmp_path / "out" / "report.html").read_text()
    assert "bundled example logs (no student id was given" in page


def test_a_student_graded_without_the_course_secret_is_told_it_is_not_their_fault(tmp_path, course):
    """Personal logs cannot be judged without the secret that made them: the grader says so, never a wrong 1/3."""
    folder = shutil.copytree(paths.SOLUTIONS / "C_diagnosis", tmp_path / "alice" / "C_diagnosis")
    report = grade(folder.parent, course, seed_set="public", checks=["C.own_labels"], student="alice").report
    check = report.to_json()["projects"]["C"]["checks"][0]
    assert check["score"] == 0 and "not your fault" in check["message"] and "no course secret" in check["message"]


def test_the_c_notebook_runs_its_self_checks_and_names_the_example_faults(tmp_path, course):
    from test_notebooks import printed_by

    printed = printed_by("C_diagnosis", tmp_path, timeout=300)
    assert "False" not in printed and printed.count("True") == 5
    seed = course.projects["C"].checks["C.own_labels"].bar["example_seed"]
    example = run_plan.student_set(run_plan.student_key(None, None, seed))
    assert f"diagnose says: { {name: run.label for name, run in example.items()} }" in printed


def test_judges_refuse_shortened_or_forged_results(course):
    """Student code rules its child; a result with fewer cases or made-up keys must score 0, never skip comparisons."""
    from autograder.checks import Malformed

    variance = PROJECTS["C"].checks["C.explained_variance"]
    ctx = Context((7,), "public", variance.Bar.model_validate({"tolerance": 1e-9}))
    with pytest.raises(Malformed):
        variance.judge({"out": []}, ctx)
    own = PROJECTS["C"].checks["C.own_labels"]
    bar = own.Bar.model_validate(course.projects["C"].checks["C.own_labels"].bar)
    with pytest.raises(Malformed):
        own.judge({"labels": {"agent_a": "healthy"}}, Context((7,), "public", bar))
    rules = PROJECTS["C"].checks["C.diagnose_rules"]
    with pytest.raises(Malformed):
        rules.judge({"labels": ["healthy"] * (len(boundary.BOUNDARIES) - 1)}, Context((7,), "public", rules.Bar()))


def test_boundary_logs_keep_their_runs_fields_and_their_order_is_secret(course):
    seed = course.seeds.grading[0]
    logs = fresh.unbundle(boundary.boundary_logs(seed))
    fields = {("q_values" in log): set(log) for log in fresh.unbundle(fresh.fresh_logs(seed))}
    assert len(logs) == len(boundary.BOUNDARIES) and all(set(log) == fields["q_values" in log] for log in logs)
    orders = {tuple(b.name for b in boundary.plan(seed, secret)) for secret in (None, "s1", "s2", "s3")}
    assert len(orders) > 1


def test_grading_twice_in_fresh_processes_gives_the_same_report(reference_report):
    again = grade_in_a_fresh_process(["C"])
    assert json.dumps(without_timing(again), sort_keys=True) == json.dumps(without_timing(reference_report),
                                                                           sort_keys=True)


def test_the_reference_carries_no_finding(reference_report):
    """A known mistake is named only where a check fails: the reference, on the grading seeds, carries none."""
    assert not [c["id"] for c in reference_report["projects"]["C"]["checks"] if "findings" in c]
