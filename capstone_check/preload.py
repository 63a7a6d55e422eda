"""Imported once by the server that forks each check's child (``capstone_check.starts``), never by the checker itself:
it gives that server the environment a fresh child gets, before numpy reads it, then imports numpy."""

import os
import sys

from capstone_check.starts import CHILD_ENV

os.environ.update(CHILD_ENV)
sys.dont_write_bytecode = True

import numpy  # noqa: E402, F401 - the import every check's child pays for, paid once here
