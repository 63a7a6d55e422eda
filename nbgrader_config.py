"""nbgrader's view of the kit: the reference solutions are the source, the student stubs the release.

Run nbgrader's commands from the kit's root (or a course folder holding this file and those two folders).
"""

import os
import sys
import warnings

from sqlalchemy.exc import SAWarning

from autograder.projects import PROJECTS

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

# nbgrader 0.9's Gradebook.add_submission builds a new submission's rows before adding them to its session, so
# SQLAlchemy 2 warns, three times per student at autograde, that an autoflush met them outside it; they are added
# right after, all together. Only that warning, only from nbgrader's gradebook.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted(Assignment|Notebook)> not in session",
                        category=SAWarning, module=r"nbgrader\.api")

# nbgrader runs `alembic` from PATH to set up its gradebook; it lives beside this Python, so `.venv/bin/nbgrader`
# works without activating the virtual environment.
os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"

# nbgrader copies the source's .py modules into the release as they are: strip their solution regions after the copy,
# so `nbgrader generate_assignment` (formgrader's "Generate") releases stubs, as `autograder release` does.
c.GenerateAssignment.preprocessors.append("autograder.nbrelease.StripModuleSolutions")

# Students edit and submit the project's .py modules: grade theirs, never overwrite them with the source (solution)
# copy. So too the files each student is handed personally (C's logs: the source holds only the example set), and what
# the reference's own run left in the source (B's results.json): a student who did not make their own would otherwise
# be graded, and given feedback, on the reference's.
keep = {p.folder: [f"{module}.py" for module in p.modules] + list(p.own_files) + list(p.made_by_students)
        for p in PROJECTS.values()}
c.Autograde.exclude_overwriting = keep

# nbgrader's OverwriteCells, without its checksum warning on every check cell that has a hidden block (see
# autograder.nbfeedback.RestoreHiddenTests): a warning now means the student changed a locked cell. No ClearOutput:
# the student's own cells keep the outputs they were submitted with, since no kernel runs them again (see below).
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.nbfeedback.RestoreHiddenTests",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# A graded cell a student deleted comes back (marked as added back), so it is still graded and its loss is visible.
c.OverwriteCells.add_missing_cells = True

# A kit project's check cells are graded outside any kernel, with the grading seeds, and no code of the notebook is run:
# a kernel runs the student's code as the grading user, which could read the overlay and redefine what a check cell
# calls. Other assignments of the course are executed by nbgrader as usual (autograder.nbautograde.GradeChecks).
c.Autograde.autograde_preprocessors = [
    "autograder.nbautograde.GradeChecks",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback shows each check cell as the student saw it (without its hidden block) above the grader's verdict, and no
# output of any cell holds a grading seed or the course secret.
c.GenerateFeedback.preprocessors = [
    "autograder.nbfeedback.ClearHiddenTests",
    "autograder.nbfeedback.StrikeSecrets",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
