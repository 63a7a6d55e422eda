"""The students' checker: the course's public checks, run on a student's own machine without the reference.

It is the only grading code in the students' bundle. Every expected value it compares with was computed when the
course was released, by the full grader, from the reference on the public inputs and seeds (``expected/<P>.json``);
nothing here computes an answer. Final grading runs the same checks with seeds students do not see, in the full kit.
"""

__version__ = "0.1.0"
