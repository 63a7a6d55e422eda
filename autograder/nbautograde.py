"""``nbgrader autograde`` for the kit's projects: the check cells are graded by the grader, never by a kernel.

nbgrader's own ``Execute`` runs the submitted notebook in a kernel as the grading user, and takes each test cell's
score from what that kernel printed. Whatever the student's cells or modules run there can read what that user may
(the course's overlay) and redefine anything the check cells call, the seeds they grade with included. So for an
assignment that is one of the kit's projects, ``GradeChecks`` takes ``Execute``'s place: it runs no kernel, grades the
project folder once, as ``autograder grade`` does (student code only in the sandbox, the course and its overlay read
from nbgrader's course folder and the grader's own environment, the student id nbgrader's), and writes each check's
verdict and score into its cell. The student's own cells keep the outputs they were submitted with. Any other
assignment of the course is executed by nbgrader as usual.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import ClearOutput, Execute

from autograder import paths
from autograder.config import Course
from autograder.loader import load_course
from autograder.grading import grade
from autograder.nbcells import grade_id_of, project_for_folder
from autograder.notebook import verdict

PLACEHOLDER_NOTE = "  (note: graded with the kit's placeholder grading seeds; the instructor's overlay was not found)"


class GradeChecks(Execute):
    """nbgrader's ``Execute``, except for the kit's projects, whose check cells get the grader's verdicts instead."""

    def preprocess(self, nb, resources):
        project = project_for_folder(resources["nbgrader"]["assignment"])
        if project is None:  # nbgrader's own run, its outputs cleared first as its ClearOutput would have
            return super().preprocess(ClearOutput().preprocess(nb, resources)[0], resources)
        course = self.course()
        outputs = self.graded(Path(resources["metadata"]["path"]), course, project, resources["nbgrader"]["student"])
        for cell in nb.cells:
            if cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell):
                grade_id = cell.metadata.nbgrader["grade_id"]
                cell.outputs = outputs.get(grade_id) or [_not_run(grade_id)]
                cell.execution_count = None
        return nb, resources

    def course(self) -> Course:
        """The course of nbgrader's course folder (``CourseDirectory.root``), with the overlay the grader's own
        environment names or that lies beside it: nothing in a submission can choose it."""
        root = Path(CourseDirectory(config=self.config).root)
        return load_course(root / paths.COURSE_NAME)

    def graded(self, folder: Path, course: Course, project: str, student: str) -> dict[str, list]:
        """Each check cell's outputs (its verdict, then its score as the cell's result), by grade id."""
        report = grade(folder, course, seed_set="grading", projects=[project], student=student).report
        outputs = {}
        for result in report.projects[project].checks:
            text = verdict(result, result.id, "grading seeds")
            if course.private_overlay is None:
                text += "\n" + PLACEHOLDER_NOTE
            outputs[grade_id_of(result.id)] = [
                nbformat.v4.new_output("stream", name="stdout", text=text + "\n"),
                nbformat.v4.new_output("execute_result", data={"text/plain": repr(result.score)}, execution_count=None)]
        return outputs


def _not_run(grade_id: str):
    """A graded code cell that is none of the project's checks scores nothing: the kit runs no notebook code."""
    return nbformat.v4.new_output("error", ename="NotGraded", evalue=f"{grade_id} is not one of the project's checks",
                                  traceback=[f"{grade_id}: not graded. The kit grades its projects' check cells "
                                             "outside the notebook and runs no other code of the notebook."])
