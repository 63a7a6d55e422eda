"""Run one check's ``collect`` in a child process with wall-time, memory and output limits.

``runner`` is the parent's side, ``child`` the child's; this package imports neither, so the child starts light.
"""
