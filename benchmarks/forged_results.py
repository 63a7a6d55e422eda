"""Benchmark: the grader's peak memory when every check's child hands back the largest result it may.

    .venv/bin/python -m benchmarks.forged_results [--projects D] [--jobs 2]

Builds a submission whose module, once a check (not the import probe) has loaded it, writes a result file of
numbers, as many as the grader accepts (one per ``runner.BYTES_PER_VALUE`` bytes), just under that check's
``result_mb`` in course.yml (``limits.result_mb`` unless the check sets its own, as
B.table and B.bar do) and exits; grades it as a whole command and prints the peak
resident memory of the grader's whole process tree (as a container's memory limit sees it) and the reference's,
for comparison.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from autograder import paths
from autograder.loader import load_course
from autograder.projects import PROJECTS
from autograder.sandbox.runner import BYTES_PER_VALUE
from benchmarks.grade import measure

KIT = Path(__file__).resolve().parent.parent

FORGE = """
import json as _json, os as _os, sys as _sys
_request = _json.load(open(_sys.argv[-1])) if _sys.argv[-1].endswith("request.json") else {{}}
if _request.get("check"):
    with open(_request["result"], "w") as _out:
        _out.write('{{"status": "ok", "data": {{"forged": [' + {item!r} * {counts}[_request["check"]] + '1.5]}}}}')
    _os._exit(0)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="D")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    course = load_course(paths.COURSE_FILE, private=False)
    item = "1.5".ljust(BYTES_PER_VALUE - 1, "0") + ","  # the densest the grader accepts: one value per so many bytes
    counts = {cid: int(course.limits_for(pid, cid).result_mb * 2**20 * 0.98) // len(item)  # just under the limit
              for pid in args.projects.split(",") for cid in course.projects[pid].checks}
    root = Path(tempfile.mkdtemp(prefix="forged-"))
    for pid in args.projects.split(","):
        project = PROJECTS[pid]
        folder = root / project.folder
        folder.mkdir()
        for module in project.modules:
            reference = (paths.SOLUTIONS / project.folder / f"{module}.py").read_text()
            (folder / f"{module}.py").write_text(FORGE.format(counts=counts, item=item) + reference)
    base = [sys.executable, "-m", "autograder", "grade", "--projects", args.projects, "--seeds", "public",
            "--jobs", str(args.jobs)]
    for name, path in (("forged", root), ("reference", paths.SOLUTIONS)):
        wall, peak, _, _ = measure(base + [str(path)])
        sizes = sorted({round(c * len(item) / 2**20, 1) for c in counts.values()})
        print(f"{name:9s}: grade {args.projects} in {wall:.1f} s, peak memory of the process tree {peak:.0f} MB "
              f"(each check's result just under its limit: {', '.join(map(str, sizes))} MB)" if name == "forged" else
              f"{name:9s}: grade {args.projects} in {wall:.1f} s, peak memory of the process tree {peak:.0f} MB")


if __name__ == "__main__":
    main()
