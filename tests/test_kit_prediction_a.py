"""A.bar's prediction end to end: the students' bundle holds the reference's own runs, and the checker's A.bar row
on a planted bug is predicted as one number from whether the pieces remake them (``capstone_check.kinds.a_remade``)."""

from __future__ import annotations

import json

import pytest

from autograder import paths
from autograder.student_kit import build
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL
from tests.support.student_bundle import kit_line, planted

pytestmark = pytest.mark.slow  # builds a bundle and trains: `make test-fast` leaves it out


@pytest.fixture(scope="module")
def a_bundle(tmp_path_factory):
    return build(paths.KIT_ROOT, tmp_path_factory.mktemp("prediction") / "kit", ["A"])


def test_the_bundle_holds_a_sample_of_the_reference_runs_of_every_public_seed(a_bundle):
    spec = json.loads((a_bundle / "capstone_check" / "expected" / "A.json").read_text())["checks"]["A.bar"]
    runs = spec["reference_runs"]
    assert sorted(runs["seeds"]) == sorted(str(seed) for seed in spec["seeds"])
    assert (a_bundle / "capstone_check" / "expected" / runs["file"]).is_file()


@pytest.mark.parametrize("mutant, said", [
    ("min and max swapped", "your pieces make each update of the reference's own runs on the public seeds as it did: "
                            "A.clip_gradient fails here only in cases the course's runs never reach (predicted 6/6)"),
    ("clip applied on the wrong side", "your pieces do not make update 1 of the reference's own run of seed 7 as it "
                                       "did (parameters"),
])
def test_a_bar_is_predicted_from_whether_the_pieces_remake_the_reference_runs(a_bundle, tmp_path, mutant, said):
    planted(tmp_path, next(m for m in ALL if m.name.startswith(mutant)))
    with forgotten_after(["ppo"]):
        line = kit_line(a_bundle, tmp_path, "A", "A.bar")
    assert said in line, line
    assert "or up to" not in line
    if "do not make" in line:
        assert line.index("Predicted 0/6: Fix ") < line.index(said)
