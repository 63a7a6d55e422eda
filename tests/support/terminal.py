"""A command run as a person at a terminal runs it: its stdout and stderr on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess


def terminal_output(command: list[str], env: dict, cwd=None, timeout: float = 600) -> str:
    """What ``command`` wrote to the terminal, decoded, escape sequences and all; it must exit 0."""
    leader, follower = pty.openpty()
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env, cwd=cwd)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert child.wait(timeout=timeout) == 0
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")
