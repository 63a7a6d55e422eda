"""The catalogues of known mistakes: the share of planted bugs named by a finding of their own (graded one by one in
tests/test_mutants.py), every finding id a planted bug names exists in its project's catalogue, and a finding's
sentence is the catalogue's own words on the grading seeds too (the reference carrying none is asserted beside each
project's reference grading, in tests/projects/)."""

import importlib

import pytest

from autograder.findings import Finding, Mistake, catalogue, matched, same
from autograder.projects import PROJECTS
from tests.support.mutants import ALL

OVERALL, PER_PROJECT = 0.80, 0.70  # the targets: the share of planted bugs named by a finding of their own


def mistakes_of(pid: str) -> dict[str, Mistake]:
    try:
        return importlib.import_module(f"{PROJECTS.package(pid)}.mistakes").MISTAKES
    except ModuleNotFoundError:
        return {}


def share(mutants) -> float:
    return sum(1 for m in mutants if m.finding) / len(mutants)


def test_every_named_finding_is_in_its_projects_catalogue_under_a_check_of_that_project():
    for mutant in ALL:
        if mutant.finding:
            pid = mutant.check.split(".")[0]
            mistake = mistakes_of(pid)[mutant.finding]
            assert mistake.check in PROJECTS[pid].checks and mistake.id.startswith(mistake.check + ".")


def test_the_share_of_planted_bugs_named_by_their_own_finding_across_the_projects():
    assert share(ALL) >= OVERALL, f"{share(ALL):.0%} of {len(ALL)} planted bugs are named"


@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_the_share_of_planted_bugs_named_by_their_own_finding_in_each_project(project):
    mutants = [m for m in ALL if m.check.startswith(project + ".")]
    assert share(mutants) >= PER_PROJECT, f"{project}: {share(mutants):.0%} of {len(mutants)} planted bugs are named"


def test_a_finding_is_named_only_when_every_case_matches_the_variant():
    variant = Mistake("Z.piece.doubled", "Z.piece", "doubles", "piece", lambda x: 2 * x)
    assert matched([variant], [(1.0,), (2.0,)], [2.0, 4.0]) == [Finding(id="Z.piece.doubled", text="doubles")]
    assert matched([variant], [(1.0,), (2.0,)], [2.0, 5.0]) == []
    assert matched([variant], [], []) == []


def test_nan_and_inf_match_only_themselves():
    assert same([1.0, float("nan")], [1.0, float("nan")]) and not same([1.0, 0.0], [1.0, float("nan")])
    assert same(float("inf"), float("inf")) and not same(3.0, float("inf"))


def test_a_catalogue_refuses_an_id_given_twice():
    with pytest.raises(ValueError):
        catalogue(Mistake("Z.a.b", "Z.a", "one"), Mistake("Z.a.b", "Z.a", "two"))


def test_on_the_grading_seeds_a_finding_is_the_catalogues_sentence_said_along_a_blind_message(tmp_path):
    from autograder import paths
    from autograder.loader import load_course
    from tests.support.grading import copy_reference, grade_checks, mutate, write_submission

    overlay = tmp_path / "course.private.yml"  # the instructor's own grading seeds: the report is blind
    overlay.write_text("seeds: {grading: [4711, 815, 2026]}\n")
    course = load_course(paths.COURSE_FILE, private=overlay)
    mutant = next(m for m in ALL if m.name == "leave-one-out divides by K")
    root = copy_reference(tmp_path / "submission", mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    result = grade_checks(root, course, checks=[mutant.check], seed_set="grading")[mutant.check]
    mistake = mistakes_of("D")[mutant.finding]
    assert result["findings"] == [mistake.finding.model_dump()]
    assert mistake.text in result["message"] and "returned" not in result["message"]
    assert not any(str(seed) in result["message"] for seed in course.seeds.grading)
