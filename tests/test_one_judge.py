"""One judge for both sides: a check written once (``autograder.projects._shared.once.WrittenOnce``) gives, on the
public seeds, the same row in the students' check as in final grading: the same score, the same message byte for
byte, the same known mistakes named beside it and the same located statements. Held on the reference, the stubs,
every planted bug of such a check and generated mutants of the functions these checks call.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import grade, judged
from autograder.plan import planned
from autograder.projects import PROJECTS
from autograder.projects._shared.calls import CallsCheck
from autograder.projects._shared.once import WrittenOnce
from autograder.student_kit import kit_module
from capstone_check.calling import inputs_of
from autograder.projects.d_grpo.mistakes import MISTAKES
from tests.support.grading import copy_reference
from tests.support.mutants import ALL
from tests.support.mutations import generate
from tests.support.student_bundle import PROJECT_OF, expected_of, kit_line, kit_result, planted
from tests.support.student_kit_verdicts import COURSE, TRAINING, _outcome

WRITTEN_ONCE = {pid: [cid for cid, check in PROJECTS[pid].checks.items() if isinstance(check, WrittenOnce)]
                for pid in "ABCD"}
QUICK = {pid: [cid for cid in checks if cid not in TRAINING] for pid, checks in WRITTEN_ONCE.items()}
GENERATED = 30  # mutants drawn, the same ones on every run


def test_every_check_of_single_pieces_is_written_once():
    """Every check the students' checker runs itself, one class each, whose students' spec is the check's own."""
    assert WRITTEN_ONCE == {
        "A": ["A.gae", "A.batch", "A.ratio", "A.clip_gradient", "A.value_entropy", "A.update"],
        "C": ["C.entropy", "C.kl_clip", "C.explained_variance", "C.td_q", "C.return_drop", "C.fresh_runs",
              "C.diagnose_rules"],
        "D": ["D.weights", "D.kl_penalty", "D.enumeration", "D.clip_gradient", "D.grpo_step", "D.price_exploit",
              "D.chapter_tables", "D.k_sweep", "D.beta_sweep"],
        "B": ["B.defaults", "B.switches", "B.summary"]}
    for pid, checks in WRITTEN_ONCE.items():
        for cid in checks:
            spec = kit_module(pid).SPECS[cid]
            assert spec.__func__ is type(PROJECTS[pid].checks[cid]).spec, cid


def rows(bundle: Path, root: Path, pid: str, checks: list[str]) -> list[tuple]:
    """Per check, (final grading's row, the students' check's row), each as (score, message, findings, located)."""
    _, data = expected_of(bundle, pid)
    folder, out = root / PROJECTS[pid].folder, []
    for cid in checks:
        item = planned(COURSE, pid, cid, "public", folder)
        entry = judged(item, _outcome(item, folder), COURSE)
        graded = (entry.score, entry.message, [f.text for f in entry.findings],
                  [statement.model_dump() for statement in entry.located])
        result = kit_result(bundle, root, pid, cid)
        fraction, spec = min(max(result["fraction"], 0.0), 1.0), data["checks"][cid]
        if spec["credit"] == "all_or_nothing" and fraction < 1:
            fraction = 0.0
        score = round(spec["points"] * fraction, 2)
        checked = (score, result["message"], result.get("named", []), result.get("located", []))
        out.append((cid, graded, checked))
    return out


def assert_one_row(bundle: Path, root: Path, pid: str, checks: list[str]) -> None:
    for cid, graded, checked in rows(bundle, root, pid, checks):
        assert graded == checked, (cid, graded, checked)


def edited(root: Path, folder: str, module: str, source: str) -> Path:
    """The reference's ``folder`` under ``root`` with ``module`` replaced by ``source``."""
    copy_reference(root, folder)
    (root / folder / module).write_text(source, encoding="utf-8")
    return root


def submission(tmp_path: Path, pid: str, which: str) -> Path:
    folder = PROJECTS[pid].folder
    if which == "reference":
        return copy_reference(tmp_path, folder)
    shutil.copytree(paths.ASSIGNMENTS / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.ipynb"))
    return tmp_path


@pytest.mark.parametrize("pid", list("ABCD"))
@pytest.mark.parametrize("which", ["reference", "stubs"])
def test_the_reference_and_the_stubs_get_one_row_on_both_sides(bundle, pid, which, tmp_path):
    assert_one_row(bundle, submission(tmp_path, pid, which), pid, QUICK[pid])


@pytest.mark.slow
@pytest.mark.parametrize("pid", ["C", "D"])
@pytest.mark.parametrize("which", ["reference", "stubs"])
def test_the_training_checks_written_once_get_one_row_on_both_sides(bundle, pid, which, tmp_path):
    """C's fresh runs and D's tables and sweeps train for seconds each: the reference's and the stubs' rows, in the
    slow lane."""
    assert_one_row(bundle, submission(tmp_path, pid, which), pid, [c for c in WRITTEN_ONCE[pid] if c in TRAINING])


PLANTED = [m for m in ALL if m.check in {cid for checks in WRITTEN_ONCE.values() for cid in checks}]


@pytest.mark.parametrize("mutant", [pytest.param(m, marks=[pytest.mark.slow] * (m.check in TRAINING)) for m in PLANTED],
                         ids=[m.name for m in PLANTED])
def test_every_planted_bug_of_a_check_written_once_gets_one_row_on_both_sides(bundle, mutant, tmp_path):
    """The checks of single pieces, and the training check a bug is planted for (in the slow lane)."""
    pid = PROJECT_OF[mutant.folder]
    assert_one_row(bundle, planted(tmp_path, mutant), pid, QUICK[pid] + [mutant.check] * (mutant.check in TRAINING))


def test_the_students_screen_names_a_recognised_mistake_after_the_rows_message(bundle, tmp_path):
    """The row's message is final grading's; the line `capstone-check` prints ends with the mistake it names."""
    mutant = next(m for m in PLANTED if m.finding and m.check == "D.kl_penalty")
    root, text = planted(tmp_path, mutant), MISTAKES[mutant.finding].text
    result = kit_result(bundle, root, "D", mutant.check)
    assert text not in result["message"] and result["named"] == [text]
    assert kit_line(bundle, root, "D", mutant.check).endswith(f"{result['message']}; mistake recognised: {text}")


def drawn_mutants() -> list:
    """``GENERATED`` mechanical mutants of projects A, C and D, drawn once with a fixed seed."""
    every = [mutant for pid in "ACD" for mutant in generate(pid)]
    return random.Random(2026).sample(every, GENERATED)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", drawn_mutants(), ids=lambda m: m.id)
def test_generated_mutants_get_one_row_on_both_sides(bundle, mutant, tmp_path):
    """The checks of single pieces, and C's fresh runs and logs at the lines (labelled in seconds once the machine has
    trained them)."""
    root = edited(tmp_path, mutant.folder, mutant.module, mutant.source)
    assert_one_row(bundle, root, mutant.project,
                   QUICK[mutant.project] + ["C.fresh_runs", "C.diagnose_rules"] * (mutant.project == "C"))


@pytest.mark.slow
def test_a_row_led_by_a_failing_row_it_builds_on_reads_the_same_on_both_sides(bundle, tmp_path):
    """C.diagnose_rules builds on C.fresh_runs: a `diagnose` that fails both is led by C.fresh_runs, the next step,
    in final grading's report and on the students' screen alike; the reference's row is led by nothing."""
    mutant = next(m for m in ALL if m.name.startswith("diagnose reads each update's TD errors against the log's first"))
    root = planted(tmp_path, mutant)
    report = grade(root, COURSE, seed_set="public", checks=["C.fresh_runs", "C.diagnose_rules"]).report
    graded = {entry.id: entry for entry in report.checks()}
    assert not graded["C.fresh_runs"].passed and not graded["C.diagnose_rules"].passed
    message = graded["C.diagnose_rules"].message
    assert message.startswith("Not credited: this row builds on C.fresh_runs, which fails its check. Fix C.fresh_runs "
                              "first. What the grader saw: "), message
    line = kit_line(bundle, root, "C", "C.diagnose_rules")
    assert line.split("  fail  ", 1)[1].startswith(message), line
    reference = kit_line(bundle, copy_reference(tmp_path / "reference", "C_diagnosis"), "C", "C.diagnose_rules")
    assert "builds on" not in reference and reference.split("  pass  ", 1)[1].startswith("all 9 logs"), reference


@pytest.mark.parametrize("seed_set", ["public", "grading"])
def test_a_childs_inputs_hold_no_expected_value(seed_set):
    """What final grading hands the child of a check of calls: the calls' inputs and the form of each output, never
    what a call must give, a known mistake's values or a ladder's answers; the stand-ins' records (which give a
    composite's step away) on the public seeds only."""
    for pid, checks in WRITTEN_ONCE.items():
        for cid in [cid for cid in checks if isinstance(PROJECTS[pid].checks[cid], CallsCheck)]:
            item = planned(COURSE, pid, cid, seed_set)
            check, ctx = item.check, item.context_for(item.shards()[0])
            with open(check.prepare(ctx), encoding="utf-8") as made:
                inputs = json.load(made)
            text = json.dumps(inputs)  # compared as text: a NaN input equals itself there
            assert text == json.dumps(inputs_of(check.full_spec(ctx), records=seed_set == "public")), cid
            assert '"array"' not in text and '"want"' not in text and '"mistakes"' not in text, cid
            assert all(call["out"].get("float") is None for call in inputs["calls"]), cid
            assert ('"records"' in text) == (seed_set == "public" and "through" in check.full_spec(ctx)), cid


@pytest.mark.parametrize("seed_set", ["public", "grading"])
def test_the_other_checks_written_once_hand_their_children_no_answer(seed_set):
    """A.batch's child reads the segment and the batch's keys; D.enumeration's the reward tables, the group sizes and
    the reward groups; B.summary's the crafted logs, scores and factors; A.ratio's and A.update's the agent, the
    batch, the configurations and the probes of the pieces ppo_update relies on: never the expected batch, the
    policy's gradient, a statistic's value, the ratio, the networks after an update or a mistake's values."""
    for pid, cid, read in (("A", "A.batch", {"args", "keys"}), ("D", "D.enumeration", {"cases", "ks", "groups"}),
                           ("B", "B.summary", {"names", "logs", "scores", "factors"}),
                           ("B", "B.defaults", {"bar", "seed", "config"}),
                           ("B", "B.switches", {"seed", "settings", "inputs", "constants"}),
                           ("A", "A.ratio", {"new", "old", "agent", "batch", "config", "probes"}),
                           ("A", "A.update", {"agent", "batch", "config", "lr", "seed", "probes", "trained",
                                              "statistics"})):
        item = planned(COURSE, pid, cid, seed_set)
        with open(item.check.prepare(item.context), encoding="utf-8") as made:
            inputs = json.load(made)
        assert set(inputs) == read
        assert all(set(case) == {"label", "rewards"} for case in inputs.get("cases", []))
        assert inputs.get("statistics", {}) == {} and set(inputs.get("trained", {})) <= {"config"}


@pytest.mark.parametrize("seed_set", ["public", "grading"])
def test_the_fresh_runs_child_reads_logs_and_nothing_of_what_each_run_is(seed_set):
    """C.fresh_runs' child reads its seed's logs, trained in the grader: the fields a log holds, never a run's fault,
    severity or whether it is graded (the spec's, which stays in the grader), one log per run the spec judges."""
    import numpy as np

    item = planned(COURSE, "C", "C.fresh_runs", seed_set)
    check, fields = item.check, {"obs", "logits", "actions", "logp_old", "logp_new", "values", "returns", "update",
                                 "episode_returns", "episode_update", "clip_eps", "gamma", "q_values", "mc_returns",
                                 "td_errors"}
    logs = []
    for shard in item.shards():
        made = check.prepare(item.context_for(shard))
        with np.load(made, allow_pickle=False) as data:
            assert {key.partition("/")[2] for key in data.files} <= fields
        logs += check.read_inputs(item.context_for(shard, made)).loaded["logs"]
    assert len(logs) == len(check.full_spec(item.context)["runs"]) and all(set(log) <= fields for log in logs)


PUBLIC = "autograder.projects"
JUDGES = ("capstone_check.calls:judge_calls", f"{PUBLIC}.c_diagnosis.public.diagnose:judge_fresh_runs",
          f"{PUBLIC}.c_diagnosis.public.diagnose:judge_at_the_lines",
          f"{PUBLIC}.d_grpo.public.sweeps:judge_chapter_tables",
          f"{PUBLIC}.d_grpo.public.sweeps:judge_k_sweep", f"{PUBLIC}.d_grpo.public.sweeps:judge_beta_sweep",
          f"{PUBLIC}.a_ppo.public.batch:judge_batch", f"{PUBLIC}.a_ppo.public.ratio:judge_ratio",
          f"{PUBLIC}.a_ppo.public.update:judge_update", f"{PUBLIC}.b_ablations.public.settings:judge_defaults",
          f"{PUBLIC}.b_ablations.public.switches:judge_switches", f"{PUBLIC}.b_ablations.public.summary:judge_summary",
          f"{PUBLIC}.d_grpo.public.enumeration:judge_enumeration")


def test_the_judges_below_are_those_the_checks_written_once_decide_with():
    """Each check written once decides with one of ``JUDGES`` and each of them judges some check, so the wheel's test
    below imports every judge final grading runs."""
    import inspect

    names = {name.partition(":")[2] for name in JUDGES}
    used = {name for pid in "ABCD" for check in PROJECTS[pid].checks.values() if isinstance(check, WrittenOnce)
            for name in names if f"{name}(" in inspect.getsource(type(check).decide)}
    deciders = [type(check) for pid in "ABCD" for check in PROJECTS[pid].checks.values()
                if isinstance(check, WrittenOnce)]
    assert all(any(f"{name}(" in inspect.getsource(cls.decide) for name in names) for cls in deciders)
    assert used == names


def test_the_students_wheel_reaches_no_oracle_through_its_judges(bundle):
    """The judges and collectors ship in the students' bundle; importing every one of them there, with nothing but
    the bundle and the standard library's path, loads no module of the grader and no oracle."""
    import subprocess
    import sys

    from autograder.student_kit import bundled

    names = [bundled(name.partition(":")[0]) for name in JUDGES] + ["capstone_check.calling"]
    probe = ("import importlib, sys\n"
             f"for name in {names!r}:\n"
             "    importlib.import_module(name)\n"
             "bad = sorted(m for m in sys.modules if m.startswith('autograder') or 'oracle' in m)\n"
             "print(','.join(bad) + '|' + sys.modules['capstone_check'].__file__)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=bundle,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(bundle), "PYTHONNOUSERSITE": "1"})
    assert done.returncode == 0, done.stderr
    loaded, _, checker = done.stdout.strip().partition("|")
    assert loaded == "" and checker.startswith(str(bundle)), done.stdout
