"""D.k_sweep gives a step one grade on any draw of grading seeds: on each unusual seed alone, every criterion of the
sweep falls on the same side of its line as on the others, and clear of it. A seed on which K = 1 drifted to within
its tolerance, or a K >= 4 ended near the ceiling's line, would make the row turn on the draw."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import paths
from autograder.loader import load_course
from autograder.projects.d_grpo.public.sweeps import REFERENCE_SUCCESS, final_theta, k_sweep_row
from capstone_check.student import Student
from rlkit.toy import policy, success, verify
from tests.support.grading import copy_reference, mutate
from tests.support.imports import forgotten_after
from tests.support.mutants import ALL

pytestmark = pytest.mark.slow  # trains the whole sweep on three seeds per step

UNUSUAL = [2**31 + 7, 0, 4_294_967_295]  # unsorted; the largest seed numpy takes, and zero
BAR = dict(load_course(paths.COURSE_FILE, private=False).projects["D"].checks["D.k_sweep"].bar)
K1_CLEAR = 5  # a K = 1 that learns moves its success by this many tolerances at least; the reference's stays put
CEILING_CLEAR = 0.005  # a K >= 4 ends at least this far from the ceiling's line, either side


def successes(root, seed: int) -> np.ndarray:
    """Each K's success after the sweep's run of ``seed`` with the step in ``root``, as the judge computes it."""
    with forgotten_after(["grpo"]):
        student = Student(root / "D_grpo", ["grpo"])
        return np.array([success(policy(final_theta(t)), verify) for t in k_sweep_row(student, {"bar": BAR}, seed)])


@pytest.mark.parametrize("name, passes", [
    ("reference", (True, True, True, True)),
    ("baseline that excludes the sample at K = 1", (False, True, True, True)),  # K = 1 learns
    ("a step that sets theta to its change", (False, False, False, False)),
    ("every prompt sampled from the first prompt's policy", (True, False, False, False)),  # short of the ceiling
])
def test_each_criterion_lies_clear_of_its_line_on_each_unusual_seed(tmp_path, name, passes):
    root = copy_reference(tmp_path, "D_grpo")
    if name != "reference":
        planted = next(m for m in ALL if m.name == name and m.folder == "D_grpo")
        path = root / "D_grpo" / planted.module
        path.write_text(mutate(path.read_text(), planted.old, planted.new))
    for seed in UNUSUAL:
        got = successes(root, seed)
        k1 = abs(got[0] - REFERENCE_SUCCESS)
        margins = [BAR["k1_tolerance"] - k1, *(got[1:] - BAR["ceiling"])]
        assert tuple(margin >= 0 for margin in margins) == passes, (seed, got)
        assert k1 == 0 or k1 >= K1_CLEAR * BAR["k1_tolerance"], (seed, got)
        assert min(abs(m) for m in margins[1:]) >= CEILING_CLEAR, (seed, got)
