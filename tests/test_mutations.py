"""The mechanical mutant generator (tests/support/mutations.py): the same list on every run, mutants for every
project it covers, each a parsing module that differs from the reference, and known mutants that D.weights catches."""

import ast

import pytest

from autograder import paths
from tests.support.grading import grade_checks, write_submission
from tests.support.mutations import MODULES, generate


@pytest.fixture(scope="module")
def generated():
    return {project: generate(project) for project in MODULES}


def test_the_same_list_on_every_run(generated):
    for project, mutants in generated.items():
        again = generate(project)
        assert [(m.id, m.source) for m in again] == [(m.id, m.source) for m in mutants]


def test_every_project_has_mutants_each_parsing_and_differing_from_the_reference(generated):
    for project, mutants in generated.items():
        folder, module = MODULES[project]
        reference = ast.dump(ast.parse((paths.SOLUTIONS / folder / module).read_text(encoding="utf-8")))
        assert len(mutants) >= 20, project
        assert len({m.id for m in mutants}) == len(mutants)
        for mutant in mutants:
            assert mutant.id.startswith(f"{project}.")
            assert ast.dump(ast.parse(mutant.source)) != reference, mutant.id


def test_only_student_written_functions_are_mutated(generated):
    # train() and reinforce_step() are given to students in D; none of their code may change
    assert not any(".train." in m.id or ".reinforce_step." in m.id for m in generated["D"])


@pytest.mark.parametrize("change", ["r - r.mean() -> r", "r.mean -> r.sum"])
def test_known_mutants_of_the_centered_weight_fail_d_weights(generated, course, tmp_path, change):
    [mutant] = [m for m in generated["D"] if m.id.startswith("D.group_centered_weight.") and m.change == change]
    results = grade_checks(write_submission(tmp_path, mutant.source), course, ["D.weights"], seed_set="public")
    assert not results["D.weights"]["passed"]
    assert results["D.weights"]["score"] == 0
