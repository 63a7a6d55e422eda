"""The kit's nbgrader preprocessors for feedback and sanitizing: feedback with the grading seeds and the course secret
struck out of every cell output (``StrikeSecrets``), the hidden blocks cleared without a config warning
(``ClearHiddenTests``), and autograding without false checksum alarms (``RestoreHiddenTests``).

No output of an autograded notebook is made by a kernel (``autograder.nbautograde``): the check cells hold the
grader's verdicts, already filtered like every report, and the student's own cells what they were submitted with.
``StrikeSecrets`` filters every output of the feedback copy once more the same way (``secrecy``), in case a course
runs a kernel anyway.
"""

from __future__ import annotations

import copy

from nbgrader.api import MissingEntry
from nbgrader import preprocessors
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells
from traitlets import List

from autograder import paths
from autograder.loader import load_course
from autograder.secrecy import Hidden, redact, redact_text


class FeedbackPreprocessor(NbGraderPreprocessor):
    """nbgrader's preprocessor base, with ``display_data_priority`` a config option again. nbconvert's HTML exporter
    sets that option for every preprocessor of ``generate_feedback``, and nbgrader's base declares it without
    ``config=True``, so each of its preprocessors logged "Config option `display_data_priority` not recognized".
    No preprocessor here uses it."""

    display_data_priority = List().tag(config=True)


class ClearHiddenTests(FeedbackPreprocessor, preprocessors.ClearHiddenTests):
    """nbgrader's ``ClearHiddenTests`` for feedback, without that warning."""


class StrikeSecrets(FeedbackPreprocessor):
    """Replace each grading seed (as a whole number) and the course secret in cell outputs by a mark."""

    def preprocess(self, nb, resources):
        self._hidden = Hidden.of(load_course(paths.course_file(fallback=True)), "grading")
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = redact_text(output["text"], self._hidden)
            if "data" in output:
                output["data"] = {kind: redact(value, self._hidden) for kind, value in output["data"].items()}
            if "evalue" in output:
                output["evalue"] = redact_text(output["evalue"], self._hidden)
            if "traceback" in output:
                output["traceback"] = redact(output["traceback"], self._hidden)
        return cell, resources


class RestoreHiddenTests(OverwriteCells):
    """nbgrader's ``OverwriteCells`` without its false alarm on every untouched check cell.

    nbgrader stores a locked cell's checksum before it clears the hidden tests from the released copy, so every
    check cell with a hidden block logs "Attribute 'checksum' ... has changed" at ``autograde`` however faithfully
    the student kept it (jupyter/nbgrader#1961). A cell whose source is exactly the released one (the source with
    its hidden block cleared, as ``generate_assignment`` cleared it) gets the hidden block back before nbgrader
    compares, so only a cell the student did change is reported; either way nbgrader then grades the source."""

    def preprocess_cell(self, cell, resources, index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code":
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id).source
            except MissingEntry:
                source = None
            if source is not None:
                released = copy.deepcopy(cell)
                released.source = source
                preprocessors.ClearHiddenTests(parent=self).preprocess_cell(released, resources, index)
                if released.source != source and cell.source == released.source:
                    cell.source = source
        return super().preprocess_cell(cell, resources, index)
