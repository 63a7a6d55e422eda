"""The course library that stubs and solutions import.

It holds what students are *given*: the environments, the toy, helpers. It never holds the solution of a graded piece.
"""
