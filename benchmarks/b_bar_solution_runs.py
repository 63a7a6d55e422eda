"""Benchmark: are B.bar's runs the reference solution's own, bit for bit?

    .venv/bin/python -m benchmarks.b_bar_solution_runs [--seeds 101,102,103] [--settings baseline,...]

For each seed and setting (default: every setting B.bar trains), trains the run of course.yml's B.bar budget three
ways from the same seed: with the reference solution's pieces under that setting (as a submission's own run trained
before B.bar's runs became the grader's), with the grader's recipe (``bar_runs.grader_recipe``, the log-softmax in the
logits' float32) and with the judge's float64 recipe (``proofs.reference_recipe``). Prints per run the largest gap a
weight between the solution's run and each of the other two over every update, and the first update where it is not
0. Run it again with ``OPENBLAS_CORETYPE=Prescott`` for the other kernel.
"""

from __future__ import annotations

import argparse

import numpy as np

from autograder import paths
from autograder.loader import load_course
from autograder.plan import planned
from autograder.projects._shared.ppo.hyperparameters import course_config
from autograder.projects.b_ablations import bar_runs, proofs
from autograder.projects.b_ablations.public.settings import student_details
from capstone_check.student import Student
from tests.projects.b_ablations.test_bar_runs import trained


def apart(mine: np.ndarray, theirs: np.ndarray) -> str:
    """The largest gap a weight over every update, and the first update (from 1) where the runs differ."""
    gaps = np.abs(mine.astype(float) - theirs.astype(float)).max(axis=1)
    differ = np.flatnonzero(gaps)
    return f"{gaps.max():.3g}" + (f" from update {differ[0] + 1}" if len(differ) else " (bit for bit)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101,102,103")
    parser.add_argument("--settings", default=",".join(bar_runs.SETTINGS))
    args = parser.parse_args()
    bar = planned(load_course(paths.COURSE_FILE, private=False), "B", "B.bar", "grading").context.bar
    student = Student(paths.SOLUTIONS / "B_ablations", ("ppo", "details", "ablation"))
    c = bar.hyperparameters.model_dump()
    config, equal, runs = course_config(student, bar.hyperparameters), 0, 0
    for seed in [int(s) for s in args.seeds.split(",")]:
        for setting in args.settings.split(","):
            details = proofs.details_of(setting)
            solution = trained(proofs.student_recipe(student, config, student_details(student, details), bar.n_updates),
                               seed, bar)
            grader = trained(bar_runs.grader_recipe(c, setting, bar.n_updates), seed, bar)
            judge = trained(proofs.reference_recipe(c, details, bar.n_updates), seed, bar)
            equal, runs = equal + np.array_equal(solution, grader), runs + 1
            print(f"seed {seed}, {setting}: grader's recipe {apart(grader, solution)}; judge's float64 "
                  f"{apart(judge, solution)}", flush=True)
    print(f"\n{equal} of {runs} runs of the grader's recipe are the reference solution's, bit for bit")


if __name__ == "__main__":
    main()
