"""nbgrader's view of the kit: the reference solutions are the source, the student stubs the release."""

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"
