"""nbgrader's view of the kit: the reference solutions are the source, the student stubs the release.

Run nbgrader's commands from the kit's root (or a course folder holding this file and those two folders).
"""

from autograder.projects import PROJECTS

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"

# Students edit and submit the project's .py modules: grade theirs, never overwrite them with the source (solution) copy.
c.Autograde.exclude_overwriting = {p.folder: [f"{module}.py" for module in p.modules] for p in PROJECTS.values()}

# A graded cell a student deleted comes back (marked as added back), so it is still run and its loss is visible.
c.OverwriteCells.add_missing_cells = True

# The check cells run whole training sweeps (D's K-sweep, A's three PPO runs): allow them the time.
c.ExecutePreprocessor.timeout = 600

# Feedback shows each check's output but not the hidden block that ran it with the grading seeds.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
