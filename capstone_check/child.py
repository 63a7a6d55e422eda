"""One check in a child process: load the student's modules, run the check, write its verdict as JSON.

Invoked as ``python -m capstone_check.child REQUEST.json``; the parent reads the result file named in the request.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import import_module
from pathlib import Path

KINDS = {  # a check's kind in the expected-values file -> the function that runs it
    "calls": "capstone_check.calls:run_calls",
    "d_enumeration": "capstone_check.grpo_runs:enumeration",
    "d_chapter_tables": "capstone_check.grpo_runs:chapter_tables",
    "d_k_sweep": "capstone_check.grpo_runs:k_sweep",
    "d_beta_sweep": "capstone_check.grpo_runs:beta_sweep",
    "a_batch": "capstone_check.ppo_pieces:batch",
    "a_ratio": "capstone_check.ppo_pieces:ratio",
    "a_update": "capstone_check.ppo_pieces:update",
    "a_bar": "capstone_check.ppo_training:bar",
    "b_defaults": "capstone_check.ablations:defaults",
    "b_switches": "capstone_check.ablations:switches",
    "b_summary": "capstone_check.ablations:summary",
    "c_fresh_runs": "capstone_check.diagnoses:fresh_runs",
    "c_at_the_lines": "capstone_check.diagnoses:at_the_lines",  # probes: what a row left to final grading is
    "c_own_labels": "capstone_check.diagnoses:own_labels",  # predicted from
}


# checks run one child per seed (each child hands back its seed's row; the parent decides on all rows)
PER_SEED = {"d_k_sweep": "capstone_check.grpo_runs:k_sweep", "d_beta_sweep": "capstone_check.grpo_runs:beta_sweep",
            "a_bar": "capstone_check.ppo_training:bar"}


def runner_of(kind: str):
    module, name = KINDS[kind].split(":")
    return getattr(import_module(module), name)


def per_seed(kind: str, part: str):
    """A per-seed check's ``row`` (student, spec, seed) or ``verdict`` (spec, rows)."""
    module, name = PER_SEED[kind].split(":")
    return getattr(import_module(module), f"{name}_{part}")


def run(request: dict) -> dict:
    from capstone_check.student import Student, StudentError

    spec = json.loads(Path(request["expected"]).read_text())["checks"][request["check"]]
    if request.get("probe"):  # a row left to final grading: the public evidence it is predicted from
        spec = spec["probe"]
    spec["_dir"] = str(Path(request["expected"]).parent)  # where the check's recorded files are
    try:
        student = Student(Path(request["folder"]), request["modules"])
        if request.get("seed") is not None:  # one seed of a per-seed check: its row, decided by the parent
            return {"status": "ok", "row": per_seed(spec["kind"], "row")(student, spec, request["seed"])}
        verdict = runner_of(spec["kind"])(student, spec)
    except StudentError as exc:
        return {"status": "student_error", "kind": exc.kind, "fraction": 0.0, "message": str(exc)}
    except MemoryError:
        return {"status": "student_error", "kind": "memory", "fraction": 0.0, "message": "ran out of memory"}
    except BaseException as exc:  # noqa: BLE001 - said as the student's when it passed through their files
        folder = Path(request["folder"]).resolve()
        frames = traceback.extract_tb(exc.__traceback__)
        if any(Path(f.filename).resolve().is_relative_to(folder) for f in frames):
            return {"status": "student_error", "kind": "raised", "fraction": 0.0,
                    "message": f"your code raised {type(exc).__name__}: {exc}"}
        return {"status": "error", "fraction": 0.0,
                "message": "the checker itself failed on this check; please tell the instructor. "
                           + traceback.format_exc(limit=-2).strip().splitlines()[-1]}
    basis = {} if verdict.basis is None else {"basis": verdict.basis}
    return {"status": "ok", "fraction": verdict.fraction, "message": verdict.message, **basis}


def main() -> None:
    request = json.loads(Path(sys.argv[1]).read_text())
    result = run(request)
    Path(request["result"]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
