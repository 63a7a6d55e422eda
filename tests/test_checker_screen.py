"""What `capstone-check` puts on the student's screen: one table, its rows in the course's order whatever order the
checks finish in (filled in as they finish at a terminal, printed once elsewhere); one status per row that never
contradicts its prediction; a footer that keeps apart what was earned here, what is left to final grading and what
final grading is predicted to give; counts that say what they count; and no returned/expected pair printed alike."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pytest

from capstone_check import cli
from capstone_check.calls import _mismatch
from capstone_check.prediction import predicted
from capstone_check.runner import FINAL_ONLY, Row
from capstone_check.values import difference, fmt
from capstone_check.verdict import Verdict, failing_message, shown_failures

PIECES = ("X.gae", "X.batch")
BAR = {"adds": "final grading also replays each run and credits it only if every update follows from pieces that "
               "pass", "builds_on": PIECES, "points": 6}
OWN = {"adds": "left to final grading, which needs your id; it credits it only if", "builds_on": PIECES, "points": 5}
SPECS = {"X.gae": {"points": 3}, "X.batch": {"points": 1}, "X.bar": BAR, "X.own": OWN, "X.ratio": {"points": 2}}
COURSE_ORDER = list(SPECS)


def rows(gae_passes: bool = True) -> dict[str, Row]:
    return {"X.gae": Row("X.gae", "gae", 3, 3 if gae_passes else 0, gae_passes, "m", 1.0),
            "X.batch": Row("X.batch", "batch", 1, 1, True, "batch ok", 1.0),
            "X.bar": Row("X.bar", "bar", 6, 6, True, "median return 500", 9.0),
            "X.own": Row("X.own", "own", 5, 0, False, FINAL_ONLY, 0.0, final_only=True),
            "X.ratio": Row("X.ratio", "ratio", 2, 2, True, "ratio ok", 1.0)}


def fake_project(monkeypatch, found: dict[str, Row], order: list[str], specs: dict = SPECS):
    """`check` on a project whose checks finish in ``order``, each with its row of ``found``."""
    data = {"folder": "X_project", "title": "a project", "seeds": [7, 8, 9], "checks": specs}
    monkeypatch.setattr(cli, "expected", lambda project: data)
    monkeypatch.setattr(cli, "run_project", lambda project, where, checks: (found[c] for c in order))
    monkeypatch.setattr(cli, "say_limits_once", lambda memory_mb, write: None)


def printed(monkeypatch, tmp_path, order: list[str], found=None, **how) -> list[str]:
    fake_project(monkeypatch, found or rows(), order)
    said: list[str] = []
    cli.check("X", tmp_path, write=said.append, **how)
    return said


def ids(lines: list[str]) -> list[str]:
    return [line.split()[0] for line in lines if re.match(r"  X\.\w+ ", line)]


# 1. One table in the course's order, each row once.

@pytest.mark.parametrize("order", [["X.ratio", "X.bar", "X.own", "X.batch", "X.gae"],
                                   ["X.own", "X.gae", "X.ratio", "X.batch", "X.bar"]])
def test_rows_come_in_the_courses_order_whatever_order_the_checks_finish_in(monkeypatch, tmp_path, order):
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # a log
    said = printed(monkeypatch, tmp_path, order)
    assert ids(said) == COURSE_ORDER, said
    assert said == printed(monkeypatch, tmp_path, list(reversed(order)))


def test_output_that_is_not_a_terminal_holds_each_row_once_and_no_redrawing(monkeypatch, tmp_path, capsys):
    said = printed(monkeypatch, tmp_path, ["X.bar", "X.gae", "X.batch", "X.ratio", "X.own"], live=False)
    for cid in SPECS:
        assert sum(line.startswith(f"  {cid} ") for line in said) == 1, said
    assert "\x1b" not in "".join(said) + capsys.readouterr().out


def test_a_pipe_is_not_watched_and_gets_no_live_table(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # not a terminal
    assert not cli.watched()
    said = printed(monkeypatch, tmp_path, ["X.bar", "X.gae", "X.batch", "X.ratio", "X.own"])
    assert ids(said) == COURSE_ORDER and sys.stdout.getvalue() == ""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_at_a_terminal_the_table_fills_in_as_checks_finish_then_is_printed_once(monkeypatch, tmp_path):
    monkeypatch.setattr(cli.Screen, "TICK", 60.0)  # redrawn only as rows finish, for a test that reads each frame
    monkeypatch.setenv("COLUMNS", "200")
    screen = Terminal()
    finish = ["X.bar", "X.gae", "X.batch", "X.ratio", "X.own"]
    said = printed(monkeypatch, tmp_path, finish, live=True, stream=screen)
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", screen.getvalue())
    first = drawn[:drawn.index("1 of 5 checks finished")]
    assert "X.gae" in first and "running" in first and "X.bar" in first
    assert re.search(r"X\.bar +6/6 +\.\.\.\. +finished; its prediction waits for X\.gae and X\.batch", first), first
    frames = [frame for frame in re.split(r"\d of 5 checks finished, \d+ s", drawn) if "X.gae" in frame]
    for frame in frames:  # every frame lists the rows in the course's order
        assert re.findall(r"^  (X\.\w+) ", frame, re.M) == COURSE_ORDER, frame
    assert "5 of 5 checks finished" in drawn
    assert screen.getvalue().endswith(f"\r\x1b[{len(SPECS) + 1}A\x1b[J\x1b[?25h")  # the live table erased, at last
    assert ids(said) == COURSE_ORDER and not any(line.startswith("Running") for line in said)


def test_a_live_line_is_cut_to_the_terminals_width_so_the_table_is_redrawn_whole(monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "50")
    screen = Terminal()
    printed(monkeypatch, tmp_path, ["X.gae", "X.batch", "X.bar", "X.ratio", "X.own"], live=True, stream=screen)
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", screen.getvalue())
    assert max(map(len, drawn.splitlines())) < 50 and "..." in drawn


# 2. One status per row, never contradicting its prediction; a footer of three things.

def test_a_row_that_passes_here_but_is_predicted_lower_says_at_risk_with_the_prediction():
    found = rows(gae_passes=False)
    line = cli.row_line(found["X.bar"], BAR, found)
    assert predicted(found["X.bar"], BAR, found) == 0.0
    assert re.match(r"  X\.bar +6/6 +at risk: 0 to 6/6 predicted  Predicted 0/6", line), line
    assert "6/6" in line and "median return 500" in line


def test_a_notebooks_check_cell_says_at_risk_as_the_table_does(monkeypatch, tmp_path, capsys):
    """A check cell runs its row and the rows it builds on, so a row passing here but predicted lower says so there
    too, with the table's message; a row that passes with nothing at risk says "passed"."""
    from capstone_check import notebook

    checked = {cid: {**spec, "kind": "final_only" if cid == "X.own" else "checked"} for cid, spec in SPECS.items()}
    data = {"folder": "X_project", "title": "a project", "seeds": [7, 8, 9], "checks": checked}
    asked = []

    def run_project(project, where, checks):
        asked.append(checks)
        return (rows(gae_passes=False)[c] for c in checks)

    monkeypatch.setattr(notebook, "EXPECTED", tmp_path)
    monkeypatch.setattr(notebook, "expected", lambda project: data)
    monkeypatch.setattr(notebook, "run_project", run_project)
    monkeypatch.setattr(notebook, "say_limits_once", lambda memory_mb: None)
    assert notebook.grade_cell("X.bar", folder=tmp_path) == 6
    assert asked[-1] == ["X.bar", *PIECES]
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "X.bar passed here but is at risk (0 to 6/6 predicted at final grading) on the public " \
                      "seeds: 6 / 6 points"
    assert said[1] == "  " + cli.row_line(rows(False)["X.bar"], BAR, rows(False)).split("predicted  ", 1)[1]
    assert notebook.grade_cell("X.ratio", folder=tmp_path) == 2
    assert capsys.readouterr().out.startswith("X.ratio passed on the public seeds: 2 / 2 points")


def test_a_row_whose_seeds_may_give_less_is_at_risk_though_it_passes_every_public_case():
    row = Row("C.fresh_runs", "fresh", 4, 4, True, "all 24 fresh runs labelled right", 5.0, spread=[0.75, 1.0])
    assert cli.status(row, {"points": 4}, {"C.fresh_runs": row}) == "at risk: 3 to 4/4 predicted"


@pytest.mark.parametrize("gae_passes", [True, False])
def test_no_status_says_pass_or_part_where_final_grading_is_predicted_to_give_less(gae_passes):
    found = rows(gae_passes)
    found["X.ratio"] = Row("X.ratio", "ratio", 2, 1, False, "part", 1.0, spread=[0.25, 0.5])
    for cid, row in found.items():
        said, low = cli.status(row, SPECS[cid], found), predicted(row, SPECS[cid], found)
        if said in ("pass", "part"):
            assert low is None or low >= row.score, (cid, said, low)
        if low is not None and low < row.score:
            assert said.startswith("at risk") and f"{low:g}" in said


def test_the_statuses_of_a_table_line_up():
    found = rows(gae_passes=False)
    lines = cli.table("X", COURSE_ORDER, SPECS, found)
    statuses = [cli.status(found[cid], SPECS[cid], found) for cid in COURSE_ORDER]
    width = max(map(len, statuses))
    assert width > 4 and "pass" in statuses  # an "at risk" among the usual four
    column = len("  X.gae                     0/3   ")
    for line, said in zip(lines, statuses):
        assert line[column:column + width + 2] == f"{said:<{width}}  " and line[column + width + 2] != " ", line


def test_the_footer_keeps_earned_here_left_to_final_grading_and_predicted_apart():
    found = rows(gae_passes=False)
    footer = cli.total_lines("X", list(found.values()), SPECS, found)
    assert footer[0] == "  X total: 9/12 earned here, on the public seeds (12 of 17 points checkable here)."
    assert footer[1] == "  Left to final grading: 5 of the 17 points (the rows marked ----, not run here)."
    assert footer[2].startswith("  Predicted at final grading: 3/17 at least, 14/17 at most")
    assert sum("----" in line for line in footer) == 2  # the rows left to final grading: said where, counted where


def test_a_note_on_rows_marked_with_dashes_appears_only_where_there_are_such_rows():
    found = {cid: row for cid, row in rows().items() if not row.final_only}
    specs = {cid: spec for cid, spec in SPECS.items() if cid in found}
    footer = cli.total_lines("X", list(found.values()), specs, found)
    assert not any("----" in line for line in footer), footer
    assert footer[1] == "  Left to final grading: 0 of the 12 points; every row was checked here."
    assert footer[2] == "  Predicted at final grading: 12/12."


def test_a_footer_whose_prediction_cannot_be_told_says_so_rather_than_leave_it_out():
    found = {"X.bar": rows()["X.bar"]}
    footer = cli.total_lines("X", [found["X.bar"]], SPECS, found)
    assert footer[2] == "  Predicted at final grading: not known from this run; run every check of X to see."


# 3. Counts with their noun; a returned/expected pair never printed alike.

def test_the_failures_left_out_are_counted_with_their_noun():
    failures = [f"case {i}: returned {i}, expected {i + 1} on an input of its own kind {i * 'x'}" for i in range(6)]
    said = shown_failures(failures)
    assert re.search(r"; and \d more failing cases$", said), said
    assert shown_failures(failures[:4]).endswith("; and 1 more failing case")
    assert not re.search(r"and \d+ more(?! failing case)", failing_message(failures, note="a hint"))
    assert Verdict.of(failures, 10, "ok").message.endswith("more failing cases")
    assert shown_failures(failures[:1]) == failures[0]


def test_no_count_of_more_stands_without_its_noun():
    for count in range(2, 12):
        failures = [f"case {i} of {count}: the piece gave something else on this input" for i in range(count)]
        for located in (False, True):
            said = shown_failures(failures, located=located)
            assert not re.search(r"and \d+ more(?! failing cases?\b)", said), said


PAIR = re.compile(r"returned (.+), expected (.+?)(?: \((.*)\))?$", re.S)


def pair_said(got, want, tol=1e-9) -> tuple[str, str, str]:
    out = {"array": {"__array__": np.asarray(want).tolist(), "dtype": "float64", "shape": list(np.shape(want))},
           "tol": tol} if np.ndim(want) else {"float": float(want), "tol": tol}
    said = _mismatch(got, out)
    shown, expected_, why = PAIR.match(said).groups()
    return shown, expected_, why or ""


def test_the_issues_pair_is_printed_with_the_digits_that_differ():
    want = np.array([-1.0, 1.0])
    shown, expected_, _ = pair_said(want + [-3.78e-9, 3.78e-9], want)
    assert shown != expected_, (shown, expected_)
    assert expected_ == "[-1.  1.]" and "1.0000000038" in shown


@pytest.mark.parametrize("seed", range(40))
def test_no_failing_pair_is_printed_alike_without_saying_how_it_differs(seed):
    """Values a tolerance apart: the pair differs as printed, or (two arrays of numbers that are not round) says
    its difference in words; a number alone is always printed with the digits that differ."""
    rng = np.random.default_rng(seed)
    size = [(), (2,), (3,), (2, 2)][seed % 4]
    want = rng.normal(size=size) * 10.0 ** rng.integers(-3, 3)
    if seed % 3 == 0:
        want = np.round(want, 1)  # round expected values, which a tiny departure prints alike at four decimals
    gap = 10.0 ** rng.uniform(-8.9, -5) * np.maximum(1, np.abs(want))
    got = want + gap * rng.choice([-1, 1], size=size)
    assert not np.allclose(got, want, rtol=0, atol=1e-9 * max(1.0, float(np.max(np.abs(want)))))
    shown, expected_, why = pair_said(got, want)
    if np.ndim(want) == 0 or np.all(want == np.round(want, 3)):  # a number, or round expected values
        assert shown != expected_, (shown, expected_, why)
    else:
        assert shown != expected_ or why.startswith("equal to the digits printed, but off by"), (shown, why)


def test_a_difference_in_words_says_where_it_lies():
    want = np.array([0.73421879, 0.2512345])
    assert difference(want + [2e-9, 3e-9], want) == "equal to the digits printed, but off by 3e-09 in every entry"
    assert difference(want + [2e-9, 0], want) == "equal to the digits printed, but off by up to 2e-09 in 1 of 2 " \
                                                 "entries"
    assert difference([1.0, 2.0], [1.0, 2.5]) == "max |difference| 0.5"  # printed apart: as before
    assert fmt(0.5) == "0.5" and fmt([1.5, 2.25]) == "[1.5  2.25]" and fmt(np.arange(9.0)) == "an array of shape (9,)"


# End to end: the students' bundle on a planted bug, twice into a log and once at a terminal.

GAE_LINE = "delta = rewards[t] + gamma * (1 - terminated[t]) * values[t + 1] - values[t]"


def run_checker(bundle, folder, terminal: bool) -> str:
    import os
    import subprocess

    from tests.support.terminal import terminal_output

    command = [sys.executable, "-m", "capstone_check", "A", "--folder", str(folder)]
    env = {**{k: v for k, v in os.environ.items() if k != "CI"}, "PYTHONPATH": str(bundle), "COLUMNS": "200"}
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=folder.parent)
        assert done.returncode == 0, done.stderr
        return done.stdout
    return terminal_output(command, env, cwd=folder.parent).replace("\r\n", "\n")


@pytest.mark.slow
def test_two_runs_on_a_planted_bug_print_the_same_table_in_the_courses_order(bundle, tmp_path):
    from autograder import paths
    from tests.support.grading import copy_reference, mutate, write_submission

    copy_reference(tmp_path, "A_ppo")
    reference = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    write_submission(tmp_path, mutate(reference, GAE_LINE, "delta = rewards[t] + gamma * values[t + 1] - values[t]"),
                     "A_ppo", "ppo.py")
    folder = tmp_path / "A_ppo"
    first = run_checker(bundle, folder, terminal=False)  # the second run is the terminal's below: its last table
    course = list(json.loads((bundle / "capstone_check" / "expected" / "A.json").read_text())["checks"])
    listed = re.findall(r"^  (A\.\w+) ", first, re.M)
    assert listed == course, first
    assert "\x1b" not in first and not re.search(r"and \d+ more(?! failing case)", first)
    for line in first.splitlines():
        if line.startswith("  A."):
            mark = line.split()[2]
            assert mark in ("pass", "part", "fail", "----", "at")
    watched = run_checker(bundle, folder, terminal=True)
    assert "running" in watched and "7 of 7 checks finished" in watched  # the table filled in as checks finished
    table = first[first.index("  A.gae"):]
    assert watched.endswith(table) and watched.count("A total:") == 1, watched[-3000:]
