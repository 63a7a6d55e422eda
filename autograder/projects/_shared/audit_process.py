"""The audit process (``python -m autograder.projects._shared.audit_process``): the runs on stdin, replayed by the
replay the request names (``audits.name_of``), the outcomes on stdout. It runs no student code.

Apart from ``audits`` so that the module the checks import names no replay: this one imports the replay by name, and
the replay's module imports ``audits``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from importlib import import_module

from autograder.projects._shared.audits import Replay


def _limit_cpu(seconds: float | None) -> None:
    """In the audit process (which runs no student code): stop it after ``seconds`` of CPU time, where the platform
    can (elsewhere the charge after the audit still counts its time)."""
    if seconds is None:
        return
    try:
        import resource
    except ImportError:
        return
    whole = max(1, math.ceil(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (whole, whole + 1))


def replayer(name: str) -> Replay:
    """In the audit process: the replay named ``module:function`` (``name_of``)."""
    module, function = name.split(":")
    return getattr(import_module(module), function)


def main() -> None:
    request = json.loads(sys.stdin.read())
    _limit_cpu(request.get("cpu_seconds"))
    replay = replayer(request["replay"])
    outcomes = []
    for item in request["runs"]:
        episodes, failure = replay(item["run"], item["seed"], item["bar"])
        outcomes.append({"episodes": episodes, "failure": failure})
    json.dump({"outcomes": outcomes, "cpu_seconds": time.process_time()}, sys.stdout)


if __name__ == "__main__":
    main()
