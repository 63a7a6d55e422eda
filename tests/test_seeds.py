"""Any grading seeds an instructor picks: the reference earns every point whatever their order and size, and no text a
student can read (the CLI's table, report.json, report.html, Gradescope's results.json) ever holds one, nor the
course secret. nbgrader's feedback is attacked the same way in test_nbgrader.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder import paths
from autograder.checks import Context
from autograder.config import CourseError
from autograder.loader import load_course
from autograder.grading import _merge, grade
from autograder.gradescope import run as gradescope_run
from autograder.sandbox.runner import ChildRun
from autograder.secrecy import SEED_MARK, Hidden, redact
from tests.support.grading import mutate

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

SEEDS = [3_987_654_321, 1_234_567_891, 2_718_281_829]  # unsorted, large, distinctive
SECRET = "zq-course-secret-7b1e9f04"
AUTOGRADER = Path(sys.executable).parent / "autograder"


def overlay_file(folder: Path, seeds=SEEDS, secret=SECRET) -> Path:
    path = folder / "private.yml"
    path.write_text(f"seeds: {{grading: {list(seeds)}}}\nsecret: {secret}\n")
    return path


def leaks(text: str) -> list[str]:
    return [value for value in [*map(str, SEEDS), SECRET] if value in text]


def without_seconds(report: dict) -> dict:
    for project in report["projects"].values():
        for check in project["checks"]:
            check.pop("seconds")
    return report


# ------------------------------------------------------------------------------------------------ the seed list


@pytest.mark.parametrize("seeds, phrase", [
    ([5, 9, 5], "seed number 3 of the list repeats an earlier one"),
    ([-1], "greater than or equal to 0"),
    ([2**32], "less than or equal to 4294967295"),
    (list(range(11)), "at most 10 items"),
    ([], "at least 1 item"),
    ([1.5], "valid integer"),
])
def test_a_bad_grading_seed_list_is_refused_at_load_and_the_overlay_named(tmp_path, seeds, phrase):
    overlay = overlay_file(tmp_path, seeds)
    with pytest.raises(CourseError) as caught:
        load_course(paths.COURSE_FILE, private=overlay)
    message = str(caught.value)
    assert "seeds.grading" in message and phrase in message and str(overlay) in message
    assert "found" not in message  # a grading seed is never echoed: Gradescope shows a failed run's output


@pytest.mark.parametrize("seeds", [[0], [2**32 - 1, 0, 17], list(range(10, 0, -1))])
def test_one_to_ten_distinct_seeds_in_any_order_load_as_given(tmp_path, seeds):
    assert load_course(paths.COURSE_FILE, private=overlay_file(tmp_path, seeds)).seeds.grading == seeds


def test_per_seed_shards_are_joined_in_the_courses_order_whatever_order_they_come_in():
    shards = {(seed,): ChildRun("ok", 1.0, {"runs": [f"run of {seed}"]}) for seed in sorted(SEEDS)}
    merged = _merge(shards, SEEDS)
    assert merged.payload()["runs"] == [f"run of {seed}" for seed in SEEDS] and merged.seconds == 3.0


def test_messages_name_grading_seeds_by_count_and_public_ones_by_value():
    grading, public = Context(tuple(SEEDS), "grading", None), Context((7, 8, 9), "public", None)
    assert grading.seeds_shown() == "the 3 grading seeds" and grading.seed_shown(SEEDS[1]) == "grading seed 2 of 3"
    assert public.seeds_shown() == "seeds [7, 8, 9]" and public.seed_shown(8) == "seed 8"


def test_redaction_strikes_whole_seeds_and_the_secret_only():
    hidden = Hidden(tuple(SEEDS), SECRET)
    text = f"seed {SEEDS[0]}, {SEEDS[1]}.0 and {SECRET}; not 1{SEEDS[0]} nor 0.{SEEDS[2]}"
    assert redact({"m": [text]}, hidden) == {"m": [f"seed {SEED_MARK}, {SEED_MARK}.0 and ‹course secret›; "
                                                  f"not 1{SEEDS[0]} nor 0.{SEEDS[2]}"]}


@pytest.mark.parametrize("before", [2, 3])  # the cut falls inside the seed: after its second or third digit
def test_a_seed_split_by_the_message_cut_is_still_struck(before):
    """Messages are cut to their length after the redaction: cut first, a seed's leading digits would stand alone
    before the cut's note, matching no whole seed."""
    from autograder.report.model import CheckResult, ProjectResult, Report
    from autograder.secrecy import redacted

    limit, seed = 40, str(SEEDS[0])
    message = "x" * (limit - before) + seed + " and more"
    report = Report("s", "grading", {"D": ProjectResult([CheckResult("D.weights", "w", 0.0, 2.0, False, message)])})
    said = redacted(report, Hidden(tuple(SEEDS), SECRET), limit).projects["D"].checks[0].message
    assert seed[:before] not in said.replace("x", "") and said.startswith("x" * (limit - before) + SEED_MARK[:before])
    assert "(cut:" in said


# ------------------------------------------------------------------------------------------------ the reference


@pytest.fixture(scope="module")
def reference_graded(tmp_path_factory):
    """The reference, all four projects, through the CLI with the distinctive seeds: (stdout, report, html)."""
    folder = tmp_path_factory.mktemp("reference")
    done = subprocess.run([str(AUTOGRADER), "grade", str(paths.SOLUTIONS), "--private", str(overlay_file(folder)),
                           "--report", str(folder / "out")], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads((folder / "out" / "report.json").read_text()), \
        (folder / "out" / "report.html").read_text()


def test_the_reference_earns_every_point_on_unsorted_large_grading_seeds(reference_graded):
    _, report, _ = reference_graded
    failed = [(c["id"], c["message"]) for p in report["projects"].values() for c in p["checks"] if not c["passed"]]
    assert not failed
    assert report["score"] == report["max_score"] == 78


def test_a_permutation_of_the_seeds_gives_the_same_report(tmp_path, reference_graded):
    """A, C and D: each has checks run a child per seed (A.bar, C.fresh_runs, D's sweeps), merged by the machinery
    B.bar shares; B, whose re-run alone costs as much as the three, is left out to keep the suite lean."""
    _, report, _ = reference_graded
    permuted = load_course(paths.COURSE_FILE, private=overlay_file(tmp_path, [SEEDS[2], SEEDS[0], SEEDS[1]]))
    again = grade(paths.SOLUTIONS, permuted, seed_set="grading", projects=["A", "C", "D"]).report.to_json()
    # compared as JSON text: a NaN in the details (C's explained variance of constant returns) equals no NaN
    again, report = without_seconds(again), without_seconds(json.loads(json.dumps(report)))
    assert list(again["projects"]) == ["A", "C", "D"]
    assert json.dumps(again["projects"]) == json.dumps({p: report["projects"][p] for p in "ACD"})


def test_nothing_the_reference_is_graded_with_leaks_to_the_student(reference_graded):
    stdout, report, html = reference_graded
    assert leaks(stdout) == [] and leaks(json.dumps(report)) == [] and leaks(html) == []


# ------------------------------------------------------------------------------------------------ hostile code


def echoing_submission(root: Path) -> Path:
    """Every project's reference, except that the code handed a grading seed puts it (and any secret it could find)
    into an exception message: A's ppo_update and B's init_agent, and D's steps, which get a generator made
    from a seed."""
    a = (paths.SOLUTIONS / "A_ppo" / "ppo.py").read_text()
    leak = "    raise RuntimeError(f'my seed is {seed}, my env is {dict(__import__(\"os\").environ)}')\n"
    (root / "A_ppo").mkdir(parents=True)
    seed_of_rng = leak.replace("{seed}", "{rng.bit_generator.seed_seq.entropy}")  # A.bar runs the kit's loop
    (root / "A_ppo" / "ppo.py").write_text(mutate(a, '    B = len(batch["actions"])\n', seed_of_rng))
    (root / "B_ablations").mkdir()
    for name in ("ablation.py", "results.json"):
        (root / "B_ablations" / name).write_text((paths.SOLUTIONS / "B_ablations" / name).read_text())
    (root / "B_ablations" / "ppo.py").write_text(a)
    details = (paths.SOLUTIONS / "B_ablations" / "details.py").read_text()
    sizes = "    sizes = [OBS_DIM, config.hidden, config.hidden]\n"  # B's bars run the kit's loop with init_agent
    (root / "B_ablations" / "details.py").write_text(mutate(details, sizes, seed_of_rng + sizes))
    (root / "C_diagnosis").mkdir()
    (root / "C_diagnosis" / "diagnostics.py").write_text((paths.ASSIGNMENTS / "C_diagnosis" / "diagnostics.py")
                                                         .read_text())
    d = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    (root / "D_grpo").mkdir()
    (root / "D_grpo" / "grpo.py").write_text(d.replace(
        "        ys = rng.choice(N_RESPONSES, K, p=pi_old[x])\n",
        "        raise ValueError(f'entropy {rng.bit_generator.seed_seq.entropy}')\n"))
    return root


def test_seeds_echoed_by_student_code_never_reach_the_student(tmp_path):
    overlay = overlay_file(tmp_path)
    submission = echoing_submission(tmp_path / "submission")
    done = subprocess.run([str(AUTOGRADER), "grade", str(submission), "--private", str(overlay), "--report",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    messages = {c["id"]: c["message"] for p in report["projects"].values() for c in p["checks"]}
    # the attack reached the child's message, which the report does not show: the kit says what happened
    assert "your code raised RuntimeError" in messages["A.bar"] and "your code raised RuntimeError" in messages["B.bar"]
    assert leaks(done.stdout) == [] and leaks(json.dumps(report)) == []
    assert leaks((tmp_path / "out" / "report.html").read_text()) == []


def test_seeds_echoed_by_student_code_never_reach_gradescopes_results(tmp_path, monkeypatch):
    overlay = overlay_file(tmp_path)
    monkeypatch.setattr(paths, "PRIVATE_FILE", overlay)
    root = tmp_path / "autograder"
    echoing_submission(root / "submission")
    for folder in ("A_ppo", "B_ablations", "C_diagnosis"):  # D alone: the others' echoes are covered above
        shutil.rmtree(root / "submission" / folder)
    results = gradescope_run(root)
    text = (root / "results" / "results.json").read_text()
    # the K-sweep's generators are made from the grading seeds themselves: the attack's text is not shown
    assert any("your code raised ValueError" in test["output"] for test in results["tests"])
    assert results["score"] < 20 and leaks(text) == []


# ------------------------------------------------------------------------------------------------ spelt otherwise

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
SPELLINGS = {  # each way a child wrote the seed it is graded on into what the report quotes
    "full-width digits": lambda seed: str(seed).translate({ord(d): 0xFF10 + int(d) for d in "0123456789"}),
    "hex": hex, "reversed": lambda seed: str(seed)[::-1],
    "words": lambda seed: " ".join(WORDS[int(d)] for d in str(seed)),
    "zero-width characters": lambda seed: "\u200b".join(str(seed)), "base 7": lambda seed: np.base_repr(seed, 7),
}
READ_SEED = "    import json, sys\n    seed = json.load(open(sys.argv[1]))['seeds'][0]\n"


def spelt(seed: int) -> list[str]:
    return [spell(seed) for spell in SPELLINGS.values()]


def test_no_spelling_of_a_grading_seed_reaches_the_student(tmp_path):
    """The attack: a child graded on the grading seeds wrote them into its exception message in full-width digits,
    hex, reversed, as words and with zero-width characters between the digits, and all five came back. Here the
    child also writes it in base 7, raises an exception of a class named after it, and hands it back as a number the
    judge quotes."""
    course = load_course(paths.COURSE_FILE, private=overlay_file(tmp_path, [271_828, 314_159, 161_803]))
    d = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    raise_it = (READ_SEED + "    words = " + repr(WORDS) + "\n"
                "    text = [str(seed).translate({ord(d): 0xFF10 + int(d) for d in '0123456789'}), hex(seed), "
                "str(seed)[::-1], ' '.join(words[int(d)] for d in str(seed)), '\\u200b'.join(str(seed)), "
                "np.base_repr(seed, 7)]\n"
                "    raise type('Seed' + hex(seed), (ValueError,), {})(' | '.join(text))\n")
    source = mutate(d, "    r, p, p_ref = (np.asarray(a, dtype=float) for a in (r, p, p_ref))\n", raise_it)
    group = "def group_standardized_weight(r):\n"
    source = mutate(source, group, group + READ_SEED + "    return np.full(len(r), seed / 1e6)\n")
    (tmp_path / "D_grpo").mkdir()
    (tmp_path / "D_grpo" / "grpo.py").write_text(source)
    graded = grade(tmp_path, course, seed_set="grading", checks=["D.weights", "D.kl_penalty"])
    seen = json.dumps(graded.report.to_json(), ensure_ascii=False) + " ".join(c for f in graded.figures.values()
                                                                            for c, _ in f)
    checks = {c["id"]: c for c in graded.report.to_json()["projects"]["D"]["checks"]}
    assert not checks["D.weights"]["passed"] and not checks["D.kl_penalty"]["passed"]
    for seed in (271_828, 314_159, 161_803):
        found = [text for text in [*spelt(seed), str(seed), hex(seed), f"{seed / 1e6:g}"] if text in seen]
        assert found == [], (seed, found)
    assert "your code raised an exception of its own class" in checks["D.kl_penalty"]["message"]
