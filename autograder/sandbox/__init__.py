"""Run one check's ``collect`` in a child process, under limits, and read back what it returned as plain data.

``runner`` is the parent's side (with ``limits``, ``user`` and ``runtime``: what the child may use, who it runs as,
what it imports), ``child`` the child's; this package imports none of them, so the child starts light.
"""
