"""The kit's autograder: course.yml -> submission -> sandboxed checks -> score -> report."""

__version__ = "0.1.0"
