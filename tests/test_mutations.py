"""The mechanical mutants (tests/support/mutations.py): the same list on every run, for each project whose pieces
students write, each a module that parses and differs from the reference only inside the student's code; and they
are real mistakes, which the checks catch."""

from __future__ import annotations

import ast

import pytest

from autograder import paths
from tests.support.grading import grade_checks
from tests.support.mutations import FOLDERS, mutants_of, solution_lines, write_mutant


@pytest.fixture(scope="module")
def mutants() -> dict[str, list]:
    return {project: list(mutants_of(project)) for project in FOLDERS}


def test_every_project_has_mutants_of_every_student_function_and_the_list_is_fixed(mutants):
    for project, made in mutants.items():
        assert [m.id for m in made] == [m.id for m in mutants_of(project)]
        assert len({m.id for m in made}) == len(made)
        functions = {m.function for m in made}
        assert len(functions) >= 4, (project, functions)


def test_a_mutant_parses_and_changes_only_the_students_code(mutants):
    for project, made in mutants.items():
        folder, module = FOLDERS[project]
        reference = (paths.SOLUTIONS / folder / module).read_text()
        ranges = solution_lines(reference)
        for mutant in made[::7]:
            tree = ast.parse(mutant.source)
            assert ast.dump(tree) != ast.dump(ast.parse(reference)), mutant.id
            assert any(start <= mutant.line <= end for start, end in ranges), mutant.id


def test_a_mutant_of_the_standardized_weight_fails_its_check(mutants, course, tmp_path):
    mutant = next(m for m in mutants["D"] if m.function == "group_standardized_weight"
                  and m.operator == "swap-arithmetic")
    result = grade_checks(write_mutant(tmp_path, mutant), course, checks=["D.weights"])["D.weights"]
    assert not result["passed"], mutant.source
