"""The students' bundle: what students install to work on the projects and check their work, with no answer in it.

``build(course_root, out)`` writes a folder (``out``) that is an installable distribution, ``rl-capstone-student``:
the given code (``rlkit``), the students' checker (``capstone_check``), each project's released files (stubs,
notebooks, READMEs, example logs) and the checker's expected values, computed here from the reference on the public
inputs and seeds. It holds no reference code, no oracle, no grading seed and no course secret: the checker compares
the student's outputs with recorded values and decides the training bars with the given code alone
(``tests/test_student_kit.py`` searches a built bundle for all of them). ``wheel(out)`` writes its wheel.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import zipfile
from importlib import import_module
from pathlib import Path

import numpy as np

import rlkit
from capstone_check.calls import run_calls
from autograder import paths
from autograder.kit_packages import DISTRIBUTION
from autograder.loader import load_course
from autograder.plan import planned
from autograder.projects import PROJECTS
from autograder.release import for_students
from autograder.findings import recorded_mistakes
from autograder.student_kit.mistakes import catalogue_of

NAME, VERSION = "rl-capstone-student", "0.1.0"
COMMON_KINDS = {"calls": run_calls}  # checks of single pieces: the student's functions called on recorded inputs
PROJECTS_PACKAGE = "autograder.projects"
PROJECTS_FOLDER = paths.PACKAGE / "projects"
IN_BUNDLE = "capstone_check.project_checks"  # where the bundle holds the projects' public halves


class StudentKitError(Exception):
    """The bundle cannot be built as asked; the message says why."""


def kit_module(pid: str):
    """The project package's ``student_kit`` module (``SPECS``, ``KINDS``, ``FINAL_GRADING``), or None for a project
    that declares ``students_kit=False`` (every check is final grading's alone)."""
    if not PROJECTS[pid].students_kit:
        return None
    name = f"{PROJECTS.package(pid)}.student_kit"
    try:
        return import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise StudentKitError(f"project {pid} has no module {name}: add one (docs/adding-a-project.md), or declare "
                              "students_kit=False in its Project.of to leave every check to final grading") from None


def _specs(pid: str) -> dict:
    """Check id -> ``spec(ctx)`` for the checks this kit runs."""
    return getattr(kit_module(pid), "SPECS", {})


def final_grading(pid: str) -> dict:
    """Check id -> what final grading adds to it (``adds``, from the kit module's ``FINAL_GRADING``) and the rows it
    credits it on (``builds_on``, as its ``Check`` declares)."""
    checks = PROJECTS[pid].checks
    return {cid: {"adds": said["adds"], "builds_on": checks[cid].builds_on, **said}
            for cid, said in getattr(kit_module(pid), "FINAL_GRADING", {}).items()}


def public_packages() -> list[Path]:
    """Every project's public half (``autograder/projects/<package>/public``), and the one projects share."""
    return sorted(path.parent for path in PROJECTS_FOLDER.glob("*/public/__init__.py"))


def bundled(module: str) -> str | None:
    """The name ``module`` has in the students' bundle: the checker's own modules keep theirs, a project's public half
    is copied under ``capstone_check.project_checks``; None for any other module, which the bundle does not hold."""
    if module.startswith("capstone_check."):
        return module
    package, _, rest = module.removeprefix(f"{PROJECTS_PACKAGE}.").partition(".")
    if module.startswith(f"{PROJECTS_PACKAGE}.") and (rest == "public" or rest.startswith("public.")):
        return f"{IN_BUNDLE}.{package}.{rest}"
    return None


def runner(pid: str, kind: str) -> dict:
    """What the students' checker runs for a check of ``kind``: the function its project registered (``KINDS`` of
    its student_kit, or a kind every project has), by its name in the bundle, and whether that runs one child per seed
    (its module then holds ``<function>_row`` and ``<function>_verdict``)."""
    function = {**COMMON_KINDS, **getattr(kit_module(pid), "KINDS", {})}.get(kind)
    name = None if function is None else bundled(function.__module__)
    if name is None:
        raise StudentKitError(f"project {pid}'s students' kit makes checks of kind {kind!r}, which its KINDS does not "
                              "map to a function of capstone_check or of a project's public half")
    module = import_module(function.__module__)
    return {"runner": f"{name}:{function.__name__}",
            "per_seed": all(hasattr(module, f"{function.__name__}_{part}") for part in ("row", "verdict"))}


def final_lead(check) -> dict:
    """A row this kit judges as final grading does, and which builds on other rows: final grading leads it, when it
    fails, with those of them that fail (``led_by``), and so does the checker (``capstone_check.verdict.led``)."""
    return {"led_by": list(check.builds_on)} if check.builds_on else {}


def _final(pid: str, final: dict, cid: str, ctx) -> dict:
    """What final grading adds to row ``cid`` and the rows it builds on; where the row has a ``probe`` (a function of
    the public context), what it makes: the public seeds' evidence the checker predicts the row from, with the
    checker's function that reads it."""
    entry = dict(final.get(cid, {}))
    probe = entry.pop("probe", None)
    if probe is None:
        return entry
    made = probe(ctx)
    made["probe"].update(runner(pid, made["probe"]["kind"]))
    return {**entry, **made}


def expected_values(course, pid: str) -> dict:
    """Project ``pid``'s checks as the students' checker lists them: each public check's recorded inputs and expected
    values (or its bar, for checks the given code decides), its points, credit and wall-time limit; every other
    check as final grading's alone; and for a row final grading credits on more than this kit checks, what it adds
    and the rows it builds on."""
    project, specs, final, checks = PROJECTS[pid], _specs(pid), final_grading(pid), {}
    for cid, cfg in course.projects[pid].checks.items():
        item = planned(course, pid, cid, "public")
        if not cfg.public or cid not in specs:  # it needs the reference, the grader's own logs or the student's id
            checks[cid] = {"name": item.check.name, "points": item.points, "kind": "final_only", "cost": 0.0,
                           "credit": item.credit, "wall_seconds": course.limits_for(pid, cid).wall_seconds,
                           **_final(pid, final, cid, item.context)}
            continue
        shards = len(item.shards())
        limits = course.limits_for(pid, cid)
        spec = specs[cid](item.context)
        checks[cid] = {"name": item.check.name, "points": item.points, "credit": item.credit,
                       "wall_seconds": limits.wall_seconds * shards, "cost": item.check.cost * shards,
                       **spec, **runner(pid, spec["kind"]), **final.get(cid, final_lead(item.check))}
        if checks[cid].get("kind") == "calls":
            checks[cid] = recorded_mistakes(checks[cid], catalogue_of(pid))
    return {"project": pid, "title": project.title, "folder": project.folder, "modules": list(project.modules),
            "seeds": course.seeds_for("public"), "memory_mb": course.limits.memory_mb, "checks": checks}


def _copy_project(released: Path, target: Path) -> None:
    """A project's released files, its READMEs and modules naming the students' checker. Its notebooks are copied as
    released: their check cells call the students' checker already, and a changed locked cell would no longer match
    the checksum nbgrader gave it."""
    shutil.copytree(released, target, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    for path in [*target.rglob("*.md"), *target.rglob("*.py")]:
        path.write_text(for_students(path.read_text(encoding="utf-8")), encoding="utf-8")


def copy_public_halves(target: Path) -> None:
    """Every project's public half as ``<target>/<package>/public``: the depth it has under ``autograder.projects``,
    so its relative imports (``..._shared.public``) name the same modules in the bundle. Each is copied whole, whichever
    projects the bundle holds: a public half holds no answer, and one project's may use another's."""
    for public in public_packages():
        shutil.copytree(public, target / public.parent.name / "public", ignore=shutil.ignore_patterns("__pycache__"))
        (target / public.parent.name / "__init__.py").write_text("")
    (target / "__init__.py").write_text('"""Every project\'s public half: what its checks run and how they judge."""\n')


def build(root: Path, out: Path, projects: list[str] | None = None) -> Path:
    """Write the students' bundle of the course folder ``root`` into ``out`` (replaced if it exists)."""
    course = load_course(root / "course.yml", private=False)
    chosen = projects or [pid for pid in course.projects if pid in PROJECTS
                          and (root / "assignments" / PROJECTS[pid].folder).is_dir()]
    if out.exists():
        shutil.rmtree(out)
    import capstone_check  # the students' checker, a package of the kit's distribution beside autograder

    package = out / "capstone_check"
    shutil.copytree(Path(capstone_check.__file__).resolve().parent, package,
                    ignore=shutil.ignore_patterns("__pycache__", "expected", "projects"))
    shutil.copytree(Path(rlkit.__file__).parent, out / "rlkit", ignore=shutil.ignore_patterns("__pycache__"))
    copy_public_halves(package / IN_BUNDLE.rpartition(".")[2])
    (package / "expected").mkdir()
    for pid in chosen:
        released = root / "assignments" / PROJECTS[pid].folder
        if not released.is_dir():
            raise StudentKitError(f"expected the released stubs in {released}; run `autograder release` first")
        _copy_project(released, package / "projects" / PROJECTS[pid].folder)
        values = expected_values(course, pid)
        for spec in values["checks"].values():
            for name, arrays in spec.pop("_files", {}).items():
                np.savez_compressed(package / "expected" / name, **arrays)
        (package / "expected" / f"{pid}.json").write_text(json.dumps(values))
    (out / "pyproject.toml").write_text(PYPROJECT)
    (out / "README.md").write_text(README)
    return out


def wheel(out: Path) -> Path:
    """The bundle's wheel, written into ``out/dist`` by the kit itself (a pure-Python wheel is a zip with its metadata,
    PEP 427): no build backend is needed, so it builds offline on a bare install of the kit, and two builds of one
    bundle are the same bytes."""
    out = out.resolve()
    name = NAME.replace("-", "_")
    info = f"{name}-{VERSION}.dist-info"
    files = {path.relative_to(out).as_posix(): path.read_bytes() for package in PACKAGES
             for path in sorted((out / package).rglob("*"))
             if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}
    files[f"{info}/METADATA"] = _metadata((out / "README.md").read_text(encoding="utf-8")).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: {DISTRIBUTION}\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n").encode()
    files[f"{info}/entry_points.txt"] = ("[console_scripts]\n" + "".join(
        f"{script} = {target}\n" for script, target in SCRIPTS.items())).encode()
    files[f"{info}/top_level.txt"] = "".join(f"{package}\n" for package in PACKAGES).encode()
    record = [f"{path},sha256={_digest(data)},{len(data)}" for path, data in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,", ""]).encode()
    target = out / "dist" / f"{name}-{VERSION}-py3-none-any.whl"
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    return target


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _metadata(readme: str) -> str:
    """The wheel's METADATA (core metadata 2.1): what pyproject.toml below says, in the wheel's words."""
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {VERSION}", f"Summary: {DESCRIPTION}",
             f"Requires-Python: {REQUIRES_PYTHON}", *(f"Requires-Dist: {d}" for d in DEPENDENCIES),
             "Description-Content-Type: text/markdown"]
    return "\n".join(lines) + "\n\n" + readme


DESCRIPTION = "RL capstone projects (D2L 15.7.6): the students' files, the given code and a checker"
REQUIRES_PYTHON = ">=3.10"
# the given code's: B's ablation.py limits BLAS threads, the notebooks draw progress bars
DEPENDENCIES = ["numpy>=1.26", "gymnasium>=1.0,<2", "matplotlib>=3.8", "threadpoolctl>=3.1", "tqdm>=4.66"]
SCRIPTS = {"capstone-check": "capstone_check.cli:main"}
PACKAGES = ["capstone_check", "rlkit"]
_SCRIPT_LINES = "\n".join(f'{script} = "{target}"' for script, target in SCRIPTS.items())

PYPROJECT = f"""[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{NAME}"
version = "{VERSION}"
description = "{DESCRIPTION}"
readme = "README.md"
requires-python = "{REQUIRES_PYTHON}"
dependencies = {json.dumps(DEPENDENCIES)}

[project.scripts]
{_SCRIPT_LINES}

[tool.setuptools.packages.find]
include = {json.dumps([f"{package}*" for package in PACKAGES])}

[tool.setuptools.package-data]
capstone_check = ["expected/*", "projects/**/*"]
"""

README = """# RL capstone projects: the students' kit

```bash
pip install rl_capstone_student-*.whl   # or: pip install .   (from this folder)
capstone-check start D                   # copies D_grpo/ (stubs, notebook, README) into this folder
capstone-check D                         # the public checks of project D, each row as it finishes
```

The checker runs the course's public checks with the public seeds and says, per check, what was expected and what
was measured. Final grading runs the same checks with seeds you do not see. This kit holds no reference solution:
the checker compares your outputs with values recorded from the reference on the public inputs, and the training
bars are decided by the given code. Final grading also replays training runs update by update against the reference,
which this checker cannot do: it lists every check with its points, marks ---- those left to final grading, says
what final grading adds to a row and what this run already tells of it, and predicts final grading's total.
"""
