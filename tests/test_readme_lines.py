"""What the students' READMEs state is what the grader uses: every number a README gives as a line, a tolerance, a
point count or a value the grader passes is read from the README here and compared with course.yml or the code."""

import re

import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.a_ppo.update import UPDATE_CONFIG
from autograder.projects.b_ablations.switches import DEFAULTS_CONFIG
from autograder.projects.c_diagnosis import lines
from autograder.projects.d_grpo.steps import STEP_CASES

COURSE = load_course(paths.COURSE_FILE, private=False)
FOLDERS = {"A": "A_ppo", "B": "B_ablations", "C": "C_diagnosis", "D": "D_grpo"}
ROW = re.compile(r"^\| `([A-D]\.\w+)` \| ([\d.]+) \| (.*) \|$", re.M)
TOLERANCE = re.compile(r"\bto (\d(?:\.\d+)?e-\d+)\b")
NUMBER = r"(-?\d+(?:\.\d+)?(?:e-?\d+)?)"


def readme(pid: str) -> str:
    return (paths.SOLUTIONS / FOLDERS[pid] / "README.md").read_text(encoding="utf-8")


def check_rows(pid: str) -> list[tuple[str, float, str]]:
    return [(cid, float(points), text) for cid, points, text in ROW.findall(readme(pid))]


def bar_numbers(value) -> set[float]:
    """Every number in a bar, nested lists and mappings included."""
    if isinstance(value, dict):
        return {n for v in value.values() for n in bar_numbers(v)}
    if isinstance(value, (list, tuple)):
        return {n for v in value for n in bar_numbers(v)}
    return {float(value)} if isinstance(value, (int, float)) and not isinstance(value, bool) else set()


@pytest.mark.parametrize("pid", [pid for pid in sorted(FOLDERS) if check_rows(pid)])
def test_every_check_row_states_the_courses_points_and_tolerances(pid):
    for cid, points, text in check_rows(pid):
        check = COURSE.projects[pid].checks[cid]
        assert points == check.points, cid
        for tolerance in TOLERANCE.findall(text):
            assert float(tolerance) in bar_numbers(check.bar), (cid, tolerance)


def test_a_update_row_states_the_config_the_grader_passes():
    row = next(text for cid, _, text in check_rows("A") if cid == "A.update")
    stated = {field: float(value) for value, field in re.findall(r"(\d+) (epochs|minibatches)", row)}
    stated |= {field: float(value) for field, value in re.findall(r"`(\w+)` " + NUMBER, row)}
    assert stated == {field: float(value) for field, value in UPDATE_CONFIG.items()}


def test_b_defaults_row_states_the_run_the_grader_makes():
    row = next(text for cid, _, text in check_rows("B") if cid == "B.defaults")
    envs, steps, updates = map(int, re.search(r"(\d+) CartPoles × (\d+) steps × (\d+) updates", row).groups())
    bar = COURSE.projects["B"].checks["B.defaults"].bar
    assert (envs, steps, updates) == (bar["num_envs"], bar["n_steps"], bar["n_updates"])
    assert "every value is off its default" in row and DEFAULTS_CONFIG  # the grader's config, described


def test_d_grpo_step_row_counts_the_settings_the_grader_steps():
    row = next(text for cid, _, text in check_rows("D") if cid == "D.grpo_step")
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    assert row.startswith(f"{words[len(STEP_CASES) - 1]} settings")


def diagnose_lines() -> list[float]:
    """The bold numbers of C's README from the `diagnose` entry on, in the order they are stated."""
    text = readme("C")
    text = text[text.index("- **`diagnose(log)`**"):text.index("- **`my_labels()`**")]
    return [float(n) for n in re.findall(r"\*\*" + NUMBER + r"(?: nats)?\*\*", text)]


def test_c_readme_states_the_lines_the_grader_builds_and_grades_to():
    assert diagnose_lines() == [lines.ENTROPY.fault, lines.ENTROPY.healthy, lines.LATE_VARIANCE.fault,
                                lines.LATE_VARIANCE.healthy, lines.LATE_TD.fault, lines.LATE_TD.healthy,
                                lines.CLEARANCE, *(side for gap in lines.EDGES for side in gap)]
