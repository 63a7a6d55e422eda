"""nbgrader's view of the kit: the reference solutions are the source, the student stubs the release.

Run nbgrader's commands from the kit's root (or a course folder holding this file and those two folders).
"""

import os
import sys

from autograder.projects import PROJECTS

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

# nbgrader runs `alembic` from PATH to set up its gradebook; it lives beside this Python, so `.venv/bin/nbgrader`
# works without activating the virtual environment.
os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"

# Students edit and submit the project's .py modules: grade theirs, never overwrite them with the source (solution)
# copy. So too the files each student is handed personally (C's logs: the source holds only the example set), and what
# the reference's own run left in the source (B's results.json): a student who did not make their own would otherwise
# be graded, and given feedback, on the reference's.
keep = {p.folder: [f"{module}.py" for module in p.modules] + list(p.own_files) + list(p.made_by_students)
        for p in PROJECTS.values()}
c.Autograde.exclude_overwriting = keep

# nbgrader's OverwriteCells, without its checksum warning on every check cell that has a hidden block (see
# autograder.nbfeedback.RestoreHiddenTests): a warning now means the student changed a locked cell.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.nbfeedback.RestoreHiddenTests",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# A graded cell a student deleted comes back (marked as added back), so it is still run and its loss is visible.
c.OverwriteCells.add_missing_cells = True

# The check cells run whole training sweeps (D's K-sweep, A's three PPO runs): allow them the time.
c.ExecutePreprocessor.timeout = 600

# Feedback shows each check's output but not the hidden block that ran it with the grading seeds, and no output of
# any cell holds a grading seed or the course secret (a student's own cell could print what the kernel can read).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.ClearHiddenTests",
    "autograder.nbfeedback.StrikeSecrets",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
