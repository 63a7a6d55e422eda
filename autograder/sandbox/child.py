"""The child side: load the student's modules, run one check's ``collect`` (none for the import probe), write plain
JSON back.

Invoked as ``python -m autograder.sandbox.child REQUEST.json``; the parent reads RESULT.json, never a pickle.
"""

import traceback
from pathlib import Path

import numpy as np

from autograder.status import Status
from capstone_check.child import serve


def plain(value):
    """Numbers, strings, lists and dicts only: what crosses the process boundary."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"collect returned {type(value).__name__}, which is not plain data")


def run(request: dict) -> dict:
    from capstone_check.student import Student, StudentError, raised_by_student

    try:
        if request["check"] is None:  # the import probe: loading the modules is all it does, so no check is imported
            Student(Path(request["folder"]), tuple(request["modules"]))
            return {"status": Status.OK, "data": {}}
        from autograder.checks import Context
        from autograder.projects import project_in

        project = project_in(request["package"])  # that project's package alone: the others' imports are not needed
        check = project.checks[request["check"]]
        ctx = check.read_inputs(Context.from_plain(check, request))  # before the student's code runs
        student = Student(Path(request["folder"]), project.modules)
        return {"status": Status.OK, "data": plain(check.collect(student, ctx))}
    except StudentError as exc:
        partial = {"partial": plain(exc.partial)} if exc.partial else {}
        return {"status": Status.STUDENT_ERROR, "kind": exc.kind, "message": str(exc), "exception": exc.exception,
                **partial}
    except MemoryError:
        return {"status": Status.MEMORY, "message": "ran out of memory"}
    except BaseException as exc:  # noqa: BLE001 - the student's if it passed through their files, else the grader's
        blamed = raised_by_student(exc, Path(request["folder"]).resolve())
        if blamed is not None:
            return {"status": Status.STUDENT_ERROR, "kind": blamed.kind, "message": str(blamed),
                    "exception": blamed.exception}
        return {"status": Status.INTERNAL_ERROR, "message": traceback.format_exc(limit=-6)}


def main() -> None:
    serve(run)


if __name__ == "__main__":
    main()
