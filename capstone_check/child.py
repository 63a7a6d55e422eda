"""One check in a child process: load the student's modules, run the check, write its verdict as JSON.

Invoked as ``python -m capstone_check.child REQUEST.json``; the parent reads the result file named in the request.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import import_module
from pathlib import Path

from capstone_check.located import after_lead, sentence

def _function(name: str):
    """The checker's function named ``capstone_check.<module>:<function>`` in the expected values (the kit wrote the
    name from the function its project registered for the check's kind)."""
    module, _, function = name.partition(":")
    if not module.startswith("capstone_check."):
        raise ValueError(f"{name!r} is not a function of the checker")
    return getattr(import_module(module), function)


def runner_of(spec: dict):
    """The function that runs a check: ``runner(student, spec)`` -> Verdict."""
    return _function(spec["runner"])


def per_seed(spec: dict, part: str):
    """A per-seed check's ``row`` (student, spec, seed) or ``verdict`` (spec, rows): its runner's ``_row`` and
    ``_verdict`` (each child hands back its seed's row; the parent decides on all rows)."""
    return _function(f"{spec['runner']}_{part}")


def run(request: dict) -> dict:
    from capstone_check.student import Student, StudentError, raised_by_student

    spec = json.loads(Path(request["expected"]).read_text())["checks"][request["check"]]
    if request.get("probe"):  # a row left to final grading: the public evidence it is predicted from
        spec = spec["probe"]
    spec["_dir"] = str(Path(request["expected"]).parent)  # where the check's recorded files are
    try:
        student = Student(Path(request["folder"]), request["modules"])
        if request.get("seed") is not None:  # one seed of a per-seed check: its row, decided by the parent
            return {"status": "ok", "row": per_seed(spec, "row")(student, spec, request["seed"])}
        verdict = runner_of(spec)(student, spec)
    except StudentError as exc:  # with what the prediction reads of it, where the check found that much
        return {"status": "student_error", "kind": exc.kind, "fraction": 0.0,
                "message": after_lead(sentence(exc.located), str(exc)),
                **({"located": exc.located} if exc.located else {}),
                **({"basis": exc.basis} if getattr(exc, "basis", None) is not None else {})}
    except MemoryError:
        return {"status": "student_error", "kind": "memory", "fraction": 0.0, "message": "ran out of memory"}
    except BaseException as exc:  # noqa: BLE001 - said as the student's when it passed through their files
        blamed = raised_by_student(exc, Path(request["folder"]).resolve())
        if blamed is not None:  # said as final grading's child says it
            return {"status": "student_error", "kind": blamed.kind, "fraction": 0.0, "message": str(blamed)}
        return {"status": "error", "fraction": 0.0,
                "message": "the checker itself failed on this check; please tell the instructor. "
                           + traceback.format_exc(limit=-2).strip().splitlines()[-1]}
    return result_of(verdict)


def result_of(verdict) -> dict:
    """A verdict as the parent reads it: its share, its message and what the prediction is made from."""
    found = {name: value for name, value in (("basis", verdict.basis), ("remade", verdict.remade),
                                             ("by_kind", verdict.by_kind), ("spread", verdict.spread),
                                             ("aside", verdict.aside or None))
             if value is not None}
    named = [finding["text"] for finding in verdict.findings]  # the sentences of the known mistakes recognised
    return {"status": "ok", "fraction": verdict.fraction, "message": verdict.message, **found,
            **({"named": named} if named else {}), **({"located": verdict.located} if verdict.located else {})}


def serve(run_request) -> None:
    """A check's child from start to end: the request file named on the command line in, ``run_request(request)``'s
    result out, as JSON in the file the request names (the grader's sandboxed child is served the same way)."""
    request = json.loads(Path(sys.argv[1]).read_text())
    result = run_request(request)
    Path(request["result"]).write_text(json.dumps(result))


def main() -> None:
    serve(run)


if __name__ == "__main__":
    main()
