"""course.yml is typed and validated: every mistake is named by its key, and the private overlay only sets seeds."""

from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.config import CourseError
from autograder.loader import load_course


def course_file(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(paths.COURSE_FILE.read_text())
    edit(data)
    path = tmp_path / "course.yml"
    path.write_text(yaml.safe_dump(data))
    return path


def error_of(path: Path, private=None) -> str:
    with pytest.raises(CourseError) as caught:
        load_course(path, private=private or False)
    return str(caught.value)


def test_the_kits_course_file_loads():
    course = load_course(paths.COURSE_FILE, private=False)
    assert set(course.projects["D"].checks) >= {"D.k_sweep", "D.chapter_tables", "D.beta_sweep"}
    assert course.seeds.public and course.seeds.grading


def test_an_unknown_top_level_key_is_named(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d.update(sedes={})))
    assert "sedes: unknown key" in message


def test_a_bad_value_is_named_with_what_was_found(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"]["D"]["checks"]["D.weights"].update(points="two")))
    assert "projects.D.checks.D.weights.points" in message and "'two'" in message


def test_an_unknown_check_lists_the_known_ones(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"]["D"]["checks"].update({"D.nope": {"points": 1}})))
    assert "projects.D.checks.D.nope: unknown check" in message and "D.k_sweep" in message


def test_an_unknown_bar_key_is_named(tmp_path):
    message = error_of(course_file(tmp_path,
                                   lambda d: d["projects"]["D"]["checks"]["D.k_sweep"]["bar"].update(budgett=1)))
    assert "projects.D.checks.D.k_sweep.bar.budgett: unknown key" in message


def test_a_missing_bar_key_is_named(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"]["D"]["checks"]["D.k_sweep"]["bar"].pop("budget")))
    assert "projects.D.checks.D.k_sweep.bar.budget: required key is missing" in message


def test_an_unknown_project_is_named(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"].update(Z={"checks": {}})))
    assert "projects.Z: unknown project" in message


def test_a_check_the_course_forgot_is_an_error_naming_the_way_out(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["projects"]["D"]["checks"].pop("D.k_sweep")))
    assert "projects.D.checks: D.k_sweep missing" in message and "projects.D.skip" in message


def test_a_check_left_out_by_name_is_not_graded(tmp_path):
    def leave_out(data):
        data["projects"]["D"]["checks"].pop("D.k_sweep")
        data["projects"]["D"]["skip"] = ["D.k_sweep"]
    course = load_course(course_file(tmp_path, leave_out), private=False)
    assert "D.k_sweep" not in course.projects["D"].checks and "D.beta_sweep" in course.projects["D"].checks


@pytest.mark.parametrize("skip, named", [(["D.nope"], "projects.D.skip: unknown check D.nope"),
                                         (["D.weights"], "D.weights is also listed under checks")])
def test_a_skip_list_that_names_nothing_or_a_listed_check_is_an_error(tmp_path, skip, named):
    assert named in error_of(course_file(tmp_path, lambda d: d["projects"]["D"].update(skip=skip)))


def test_a_missing_overlay_file_is_an_error_not_a_silent_default(tmp_path):
    assert "cannot read private overlay" in error_of(paths.COURSE_FILE, private=tmp_path / "absent.yml")


def test_broken_yaml_and_a_missing_file_say_so(tmp_path):
    (tmp_path / "course.yml").write_text("projects: [unclosed\n")
    assert "not valid YAML" in error_of(tmp_path / "course.yml")
    assert "cannot read course file" in error_of(tmp_path / "missing.yml")


def test_the_private_overlay_replaces_the_grading_seeds_only(tmp_path):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [5, 6]}\n")
    course = load_course(paths.COURSE_FILE, private=overlay)
    assert course.seeds.grading == [5, 6]
    assert course.seeds.public == load_course(paths.COURSE_FILE, private=False).seeds.public
    assert course.private_overlay == str(overlay)


def test_the_overlay_can_be_named_by_environment(tmp_path, monkeypatch):
    overlay = tmp_path / "private.yml"
    overlay.write_text("seeds: {grading: [42]}\n")
    monkeypatch.setenv("AUTOGRADER_PRIVATE", str(overlay))
    assert load_course(paths.COURSE_FILE).seeds.grading == [42]


@pytest.mark.parametrize("text", ["seeds: {grading: [1], public: [2]}\n", "limits: {wall_seconds: 1}\n"])
def test_the_overlay_may_not_change_anything_else(tmp_path, text):
    overlay = tmp_path / "private.yml"
    overlay.write_text(text)
    with pytest.raises(CourseError, match="expected only `seeds: {grading"):
        load_course(paths.COURSE_FILE, private=overlay)


def test_the_sandbox_uids_must_not_include_root(tmp_path):
    message = error_of(course_file(tmp_path, lambda d: d["limits"].update(sandbox_uids=[0, 10])))
    assert "limits.sandbox_uids" in message and "uid 0 is root" in message


def test_each_bar_is_validated_once_where_the_course_is_loaded(monkeypatch):
    """Loading validates every bar of course.yml; planning every check, again and again, validates none of them again
    and hands each check the loader's model. A copy of a check's config with another bar (a test's smaller run) is
    validated afresh, never given the model of the bar it replaced."""
    from autograder import checks
    from autograder.plan import planned

    seen = []

    def counted(check, bar, where):
        seen.append(where)
        return original(check, bar, where)

    original = checks.validated_bar
    for module in ("autograder.loader", "autograder.plan"):
        monkeypatch.setattr(f"{module}.validated_bar", counted)
    course = load_course(paths.COURSE_FILE, private=False)
    listed = [(pid, cid) for pid, project in course.projects.items() for cid in project.checks]
    assert sorted(seen) == sorted(f"projects.{pid}.checks.{cid}" for pid, cid in listed)
    seen.clear()
    models = {(pid, cid): planned(course, pid, cid, "public").context.bar for pid, cid in listed}
    assert all(planned(course, pid, cid, "grading").context.bar is models[pid, cid] for pid, cid in listed)
    assert seen == []
    d = course.projects["D"]
    smaller = d.checks["D.beta_sweep"].model_copy(update={"bar": {**d.checks["D.beta_sweep"].bar, "runs": 1}})
    changed = course.model_copy(update={"projects": {**course.projects, "D": d.model_copy(
        update={"checks": {**d.checks, "D.beta_sweep": smaller}})}})
    assert planned(changed, "D", "D.beta_sweep", "public").context.bar.runs == 1
    assert seen == ["projects.D.checks.D.beta_sweep"]
