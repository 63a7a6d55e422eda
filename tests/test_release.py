"""assignments/ is generated from solutions/ and never drifts; the stubs keep every given piece working."""

import filecmp
import importlib.util
import json

import numpy as np
import pytest

from autograder import paths
from autograder.release import ReleaseError, for_students, release, strip_solutions

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out


def test_a_region_becomes_nbgraders_stub_at_its_indentation():
    source = "def f(x):\n    '''doc'''\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\ny = 2\n"
    assert strip_solutions(source) == ("def f(x):\n    '''doc'''\n    # YOUR CODE HERE\n"
                                       "    raise NotImplementedError()\n\ny = 2\n")


@pytest.mark.parametrize("source, problem", [
    ("### BEGIN SOLUTION\nx\n", "never closed"),
    ("x\n### END SOLUTION\n", "without a"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside the region"),
])
def test_unpaired_markers_are_named_with_their_line(source, problem):
    with pytest.raises(ReleaseError, match=problem):
        strip_solutions(source, "grpo.py")


def test_released_assignments_match_the_committed_ones_and_are_in_the_gradebook(tmp_path):
    from nbgrader.api import Gradebook

    fresh, gradebook = tmp_path / "assignments", tmp_path / "gradebook.db"
    released = release(assignments=fresh, gradebook=gradebook)
    with Gradebook(f"sqlite:///{gradebook}") as registered:  # so `nbgrader autograde P` knows every project
        assert {a.name: [n.name for n in a.notebooks] for a in registered.assignments} == {
            folder.name: [folder.name] for folder in released}
    for folder in released:
        committed = paths.ASSIGNMENTS / folder.name
        comparison = filecmp.dircmp(folder, committed, ignore=["__pycache__", ".ipynb_checkpoints"])
        assert not comparison.left_only and not comparison.right_only, (comparison.left_only, comparison.right_only)
        _, mismatch, errors = filecmp.cmpfiles(folder, committed, comparison.common_files, shallow=False)
        assert mismatch == [] and errors == [], f"{folder.name}: run `autograder release` ({mismatch})"


def test_no_solution_survives_in_the_stubs():
    for stub in paths.ASSIGNMENTS.rglob("*"):
        if stub.suffix in {".py", ".ipynb"}:
            assert "BEGIN SOLUTION" not in stub.read_text(), stub


def test_written_answers_are_cleared_from_the_released_notebook():
    notebook = json.loads((paths.ASSIGNMENTS / "D_grpo" / "D_grpo.ipynb").read_text())
    answers = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("solution")]
    assert answers and all("".join(c["source"]).strip() in {"YOUR ANSWER HERE", "# YOUR CODE HERE\n"
                                                            "raise NotImplementedError()"} for c in answers)


def test_the_stub_hands_students_a_reinforce_that_learns_even_at_k1():
    spec = importlib.util.spec_from_file_location("grpo_stub", paths.ASSIGNMENTS / "D_grpo" / "grpo.py")
    stub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stub)
    from rlkit import toy

    theta = stub.train(1, toy.verify, np.random.default_rng(1), 400)
    assert toy.success(toy.policy(theta), toy.verify) > 0.3
    with pytest.raises(NotImplementedError):
        stub.group_standardized_weight(np.ones(3))


def test_copies_of_another_projects_file_are_real_files_equal_to_it():
    from autograder.release import copies

    for copy, original in copies().items():
        for root in (paths.SOLUTIONS, paths.ASSIGNMENTS):
            assert not (root / copy).is_symlink(), f"{root / copy} must be a file: a copied folder keeps no link"
            assert (root / copy).read_bytes() == (root / original).read_bytes(), \
                f"{root / copy} drifted from {original}"


def test_the_released_files_name_the_students_checker():
    """Students have the students' kit, whose command is ``capstone-check``, never the kit's ``autograder``."""
    said = [str(p.relative_to(paths.ASSIGNMENTS)) for p in paths.ASSIGNMENTS.rglob("*")
            if p.suffix in {".py", ".md"} and "autograder check" in p.read_text(encoding="utf-8")]
    assert said == []
    assert for_students("run `autograder check D` again") == "run `capstone-check D` again"
