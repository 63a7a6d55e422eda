"""docs/course-yml.md is the course.yml reference the models write, and every key it lists says what it sets."""

from autograder import course_reference


def test_every_key_of_the_course_and_of_every_bar_has_a_description():
    assert course_reference.undescribed() == []


def test_the_committed_reference_is_what_the_models_write():
    committed = course_reference.DEFAULT_FILE.read_text(encoding="utf-8")
    assert committed == course_reference.reference(), ("docs/course-yml.md is out of date: "
                                                       "python -m autograder.course_reference rewrites it")


def test_the_reference_lists_each_checks_bar_keys(tmp_path):
    from autograder.projects import PROJECTS

    written = tmp_path / "course-yml.md"
    assert course_reference.main([str(written)]) == 0
    page = written.read_text(encoding="utf-8")
    for project in PROJECTS.values():
        for cid, check in project.checks.items():
            section = page.split(f"#### `{cid}`\n", 1)[1].split("\n#### ", 1)[0]
            assert all(f"| `{name}` |" in section for name in check.Bar.model_fields), cid
