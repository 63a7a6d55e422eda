"""The TA's compare page: the submission and the reference on the same seeds, every check in two columns."""

import re

import yaml

from autograder import paths
from autograder.cli import main
from autograder.projects import PROJECTS
from tests.support.grading import mutate, quick_course_data, write_submission

REFERENCE = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()


def test_compare_puts_the_submission_beside_the_reference(tmp_path, capsys):
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty")})
    course = tmp_path / "course.yml"
    course.write_text(yaml.safe_dump(data))
    root = write_submission(tmp_path / "sub", mutate(REFERENCE, "return r - beta * np.log(p / p_ref)",
                                                     "return r + beta * np.log(p / p_ref)"))
    out = tmp_path / "compare.html"
    assert main(["compare", str(root), "--course", str(course), "--out", str(out)]) == 0
    page = out.read_text()
    assert "submission</th><th>reference</th>" in page
    assert re.search(r"D.kl_penalty.*?0 / 1.*?1 / 1", page, re.S), "a flipped sign costs the whole check"
    assert "tolerance</code> = 1e-09" in page  # the bar is shown beside the check
    assert "(reference 3)" in page and "<script" not in page


def test_the_overlaid_figures_draw_both_runs():
    details = {"D.k_sweep": {"ks": [1, 4], "success": [[0.06, 0.5]]},
               "D.chapter_tables": {"ks": [1, 2], "k_success": [0.06, 0.5], "k_chapter": [0.062, 0.5],
                                    "betas": [0.0, 0.5], "beta_rows": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]],
                                    "beta_chapter": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]]}}
    figures = PROJECTS["D"].plots(details, reference=details)
    assert len(figures) == 2 and all(png.startswith(b"\x89PNG") for _, png in figures)
    bar = {"A.bar": {"curves": [[None, 200.0, 480.0]], "evaluated": [500.0], "threshold": 450}}
    assert PROJECTS["A"].plots(bar, reference=bar)[0][1].startswith(b"\x89PNG")


def test_a_legend_says_how_long_a_run_is_and_what_its_policy_scored():
    from autograder.projects.a_ppo.plots import run_label

    said = run_label(0, 28, [500.0])
    assert said == "your run 1: 28 updates, final policy's return 500" and "evaluated" not in said


def test_d_draws_the_beta_sweep_that_passed_and_says_why_a_figure_is_missing():
    """D.beta_sweep passed, the K-sweep and the chapter's tables gave nothing: the beta frontier is drawn from the
    fresh seeds, and the K-sweep's absence is said, naming the checks."""
    details = {"D.k_sweep": {}, "D.chapter_tables": {},
               "D.beta_sweep": {"betas": [0.0, 0.25, 0.5],
                                "mean_rows": [[1, 0.5, 0.5], [0.6, 0.5, 0.1], [0.5, 0.5, 0]]}}
    figures = dict(PROJECTS["D"].plots(details))
    beta = next(caption for caption in figures if caption.startswith("Beta frontier"))
    assert figures[beta].startswith(b"\x89PNG")
    missing = next(caption for caption in figures if "K-sweep" in caption)
    assert figures[missing] is None and "D.k_sweep or D.chapter_tables gave no results" in missing
    assert PROJECTS["D"].plots({"D.weights": {}}) == [], "no note for figures whose checks were not graded"


def test_compare_draws_the_references_curves_when_the_submission_has_none():
    sweep = {"D.k_sweep": {"ks": [1, 4], "success": [[0.06, 0.5]]},
             "D.chapter_tables": {"ks": [1, 2], "k_success": [0.06, 0.5], "k_chapter": [0.062, 0.5],
                                  "betas": [0.0, 0.5], "beta_rows": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]],
                                  "beta_chapter": [[1, 0.5, 0.5], [0.25, 0.24, 0.01]]}}
    figures = PROJECTS["D"].plots({"D.k_sweep": {}, "D.chapter_tables": {}}, reference=sweep)
    assert len(figures) == 2 and all(png.startswith(b"\x89PNG") and "reference's alone" in caption
                                     for caption, png in figures)
    bar = {"A.bar": {"curves": [[None, 200.0, 480.0]], "evaluated": [500.0], "threshold": 450}}
    (caption, png), = PROJECTS["A"].plots({"A.bar": {}}, reference=bar)
    assert png.startswith(b"\x89PNG") and "the reference's alone" in caption
