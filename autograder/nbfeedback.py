"""nbgrader's feedback with the grading seeds and the course secret struck out of every cell output.

The check cells never print them (the hidden block grades in a separate process, see ``notebook``), but nbgrader runs
a student's notebook in a kernel as the grading user, so the student's own cells can read whatever that user may,
the private overlay included, and print it. This preprocessor, listed in ``nbgrader_config.py`` for
``generate_feedback``, filters every output of the feedback copy the same way reports are filtered (``secrecy``).
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor

from autograder import paths
from autograder.config import load_course
from autograder.secrecy import Hidden, redact, redact_text


class StrikeSecrets(Preprocessor):
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
