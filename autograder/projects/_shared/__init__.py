"""Machinery more than one project uses and no project owns: the proof-of-learning loop and its audit."""
