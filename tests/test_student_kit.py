"""The students' bundle (``autograder.student_kit``): no answer inside, and the grader's verdicts on the public seeds.

The bundle is built once from a copy of the kit's course folder whose private overlay holds distinctive grading seeds
and a secret, and searched for them, for every solution marker, and (by syntax tree, not by file name) for the body
of every reference function that holds a solution region and of every oracle function.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml

import rlkit
from autograder import paths
from autograder.student_kit import wheel as build_wheel
from capstone_check.located import SMALLEST
from capstone_check.verdict import LONGEST
from tests.support.grading import copy_reference, grade_checks, mutate, quick_course_data, write_submission
from tests.support.mutants import ALL, EQUIVALENT
from tests.support.caught_survivors import CAUGHT, mutant_of
from tests.support.plain_messages import repeated
from tests.support.student_bundle import (OVERLAY_SECRET, OVERLAY_SEEDS, PROJECT_OF, PROJECT_OF_FOLDER, kit_message,
                                          kit_result)
from tests.support.student_kit_verdicts import TRAINING, bundle_scores, cached, digest, grader_scores, public_checks

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS")


def _body(node) -> str:
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def _trivial(node) -> bool:
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               or (isinstance(s, ast.Raise) and "NotImplementedError" in ast.dump(s)) for s in body)


def _functions(tree) -> list:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def answers() -> dict[str, str]:
    """Body -> where: every reference function holding a solution region, every oracle function, and every
    reference and oracle module as a whole."""
    found = {}
    for path in paths.SOLUTIONS.rglob("*.py"):
        source = path.read_text()
        tree, lines = ast.parse(source), source.splitlines()
        found[ast.dump(tree)] = str(path)
        for fn in _functions(tree):
            if any("BEGIN SOLUTION" in line for line in lines[fn.lineno - 1:fn.end_lineno]):
                found[_body(fn)] = f"{path.name}:{fn.name}"
    for path in (paths.PACKAGE / "projects").rglob("oracle.py"):
        tree = ast.parse(path.read_text())
        found[ast.dump(tree)] = str(path)
        found.update({_body(fn): f"{path}:{fn.name}" for fn in _functions(tree) if not _trivial(fn)})
    return found


def shipped_code(bundle: Path) -> dict[str, str]:
    """Body -> where, of every module, function and notebook code cell in the bundle."""
    found = {}
    sources = {str(p): p.read_text() for p in bundle.rglob("*.py")}
    for notebook in bundle.rglob("*.ipynb"):
        for i, cell in enumerate(json.loads(notebook.read_text())["cells"]):
            if cell["cell_type"] == "code":
                code = "".join(cell["source"])
                sources[f"{notebook}[{i}]"] = "\n".join(line for line in code.splitlines()
                                                        if not line.lstrip().startswith(("%", "!")))
    for where, source in sources.items():
        tree = ast.parse(source)
        found[ast.dump(tree)] = where
        found.update({_body(fn): f"{where}:{fn.name}" for fn in _functions(tree)})
    return found


def test_the_bundle_holds_no_reference_or_oracle_code(bundle):
    shipped = shipped_code(bundle)
    leaked = {where: shipped[body] for body, where in answers().items() if body in shipped}
    assert not leaked, leaked
    assert not any(p.name in ("oracle.py", "course.yml", "course.private.yml") for p in bundle.rglob("*"))
    assert not (bundle / "autograder").exists() and not list(bundle.rglob("solutions"))


def _texts(bundle: Path):
    """Every file's bytes, the members of archives (npz, wheels) unpacked."""
    for path in bundle.rglob("*"):
        if path.is_file() and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    yield f"{path}:{name}", archive.read(name)
        elif path.is_file():
            yield str(path), path.read_bytes()


def test_the_bundle_holds_no_solution_marker_grading_seed_or_secret(bundle):
    wanted = [m.encode() for m in MARKERS] + [str(s).encode() for s in OVERLAY_SEEDS] + [OVERLAY_SECRET.encode()]
    found = [(where, text) for where, data in _texts(bundle) for text in wanted if text in data]
    assert not found, found


# ------------------------------------------------------------------------------------------------ the verdicts

def both(bundle: Path, root: Path, pid: str, checks: list[str], cache) -> tuple[dict, dict]:
    """The grader's and the bundle's scores of ``checks``, each cached under a digest of its code and the
    submission."""
    submission = digest(root / PROJECT_OF_FOLDER[pid], extra=",".join(checks))
    grader_key = digest(paths.PACKAGE, Path(rlkit.__file__).parent, extra=submission + paths.COURSE_FILE.read_text())
    bundle_key = digest(bundle / "capstone_check", bundle / "rlkit", extra=submission)
    return (cached(cache, f"grader/{pid}/{grader_key}", lambda: grader_scores(root, pid, checks)),
            cached(cache, f"bundle/{pid}/{bundle_key}", lambda: bundle_scores(bundle, root, pid, checks)))



def in_bundle(bundle: Path, pid: str) -> list[str]:
    """The checks the bundle runs (those it leaves to final grading are listed but not run)."""
    checks = json.loads((bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())["checks"]
    return [cid for cid, spec in checks.items() if spec["kind"] != "final_only"]


@pytest.mark.parametrize("which", ["reference", "stubs"])
@pytest.mark.parametrize("pid", ["A", "B", "C", "D"])
def test_the_bundle_scores_the_reference_and_the_stubs_as_the_grader_does(bundle, pid, which, request):
    root = paths.SOLUTIONS.parent / ("solutions" if which == "reference" else "assignments")
    checks = in_bundle(bundle, pid)
    grader, student = both(bundle, root, pid, checks, request.config.cache)
    assert grader == student
    assert all(score > 0 for score in grader.values()) if which == "reference" else not any(grader.values())


def test_the_bundle_leaves_out_only_the_checks_that_need_the_reference_at_run_time(bundle):
    """B's table and bar are credited only on the grader's replay of every update (proof of learning). C's rules at
    the course's lines are in: the bundle holds the smallest public seed's logs at the lines, as final grading builds
    them."""
    left_out = {cid for pid in "ABCD" for cid in set(public_checks(pid)) - set(in_bundle(bundle, pid))}
    assert left_out == {"B.table", "B.bar"}


@pytest.mark.parametrize("mutant", ALL, ids=[m.name for m in ALL])
def test_the_bundle_scores_every_planted_bug_as_the_grader_does(bundle, mutant, tmp_path, request):
    """Every check of the bundle on the mutant's project; of the training checks, the one the bug is planted for
    (the others train for seconds to minutes each, and run on the reference and the stubs above)."""
    pid = PROJECT_OF[mutant.folder]
    root = copy_reference(tmp_path, mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    checks = [c for c in in_bundle(bundle, pid) if c not in TRAINING or c == mutant.check]
    grader, student = both(bundle, root, pid, checks, request.config.cache)
    assert grader == student


@pytest.mark.parametrize("project, function, change, line, check", CAUGHT,
                         ids=[f"{p}.{f}: {c[:40]}" for p, f, c, _, _ in CAUGHT])
def test_the_bundle_fails_a_generated_survivor_of_an_earlier_round_as_the_grader_does(bundle, project, function, change,
                                                                                      line, check, tmp_path, request,
                                                                                      course):
    mutant = mutant_of(project, function, change, line)
    root = copy_reference(tmp_path, mutant.folder)
    write_submission(root, mutant.source, mutant.folder, mutant.module)
    grader, student = both(bundle, root, project, [check], request.config.cache)
    assert grader == student and grader[check] < course.projects[project].checks[check].points, (grader, student)


# the checks the bundle runs as calls of single pieces, whose recorded values name mistakes (held against the bundle
# by the test below)
PIECE_CALLS = {"A.gae", "A.clip_gradient", "A.value_entropy", "C.entropy", "C.kl_clip", "C.explained_variance",
               "C.td_q", "C.return_drop", "D.weights", "D.kl_penalty", "D.clip_gradient", "D.grpo_step",
               "D.price_exploit"}
# the checks of more than one call whose recorded mistakes' values (or the checker's own rules) name mistakes too
NAMED_BEYOND_CALLS = {"A.batch", "A.ratio", "A.update"}
NAMED = [m for m in ALL if m.finding and m.check in PIECE_CALLS | NAMED_BEYOND_CALLS]


def test_the_checks_of_single_pieces_are_the_bundles_calls(bundle):
    calls = {cid for pid in "ABCD" for cid, spec in json.loads(
        (bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())["checks"].items()
        if spec["kind"] == "calls"}
    assert calls == PIECE_CALLS


SAID = [m for m in ALL if m.check not in TRAINING | {"B.table", "B.bar"}]  # rows the checker says in seconds


@pytest.mark.parametrize("mutant", SAID, ids=[m.name for m in SAID])
def test_the_bundle_says_a_planted_bug_plainly_and_names_it_with_final_gradings_finding(bundle, mutant, tmp_path):
    """The row of the check a bug is planted for fits in ``LONGEST`` characters (unless it ends with its smallest
    failing case) and says each thing once, as final grading's does (tests/test_mutants.py). For a bug of a piece,
    the recorded values of the catalogue's mistakes (and, for a few, the checker's own rules) let the students'
    checker say the finding's sentence that final grading says."""
    pid = PROJECT_OF[mutant.folder]
    root = copy_reference(tmp_path, mutant.folder)
    reference = (paths.SOLUTIONS / mutant.folder / mutant.module).read_text()
    write_submission(root, mutate(reference, mutant.old, mutant.new), mutant.folder, mutant.module)
    message, spec = kit_message(bundle, root, pid, mutant.check)
    assert (len(message) <= LONGEST or SMALLEST in message) and not repeated(message), message
    if mutant in NAMED:  # said beside the row's message, as final grading's report says its findings
        named = kit_result(bundle, root, pid, mutant.check).get("named", [])
        assert spec["findings"][mutant.finding] in named, (message, named)


@pytest.mark.parametrize("variant", EQUIVALENT, ids=[v.name for v in EQUIVALENT])
def test_the_bundle_passes_a_correct_implementation_written_differently_and_names_no_mistake(bundle, variant, tmp_path):
    """The correct rewrites of tests/ keep every row they touch whole here, as in final grading, and no recorded
    mistake matches them (a row left to final grading: its prediction from the public evidence)."""
    pid = PROJECT_OF[variant.folder]
    root = copy_reference(tmp_path, variant.folder)
    reference = (paths.SOLUTIONS / variant.folder / variant.module).read_text()
    write_submission(root, mutate(reference, variant.old, variant.new), variant.folder, variant.module)
    for cid in variant.checks:
        result = kit_result(bundle, root, pid, cid)
        assert result["fraction"] == 1 and "named" not in result, (cid, result)


def test_the_students_checker_names_the_share_of_planted_bugs_final_grading_does():
    """Each check counted here names every planted bug of its own with final grading's finding (the test above, and
    tests/test_kit_names_b.py and test_kit_names_cd.py): together at least 80 % of all planted bugs and 70 % of each
    project's, the targets final grading's catalogues meet (tests/test_findings.py)."""
    from test_findings import OVERALL, PER_PROJECT
    from test_kit_names_b import CHECKS as B_CHECKS
    from test_kit_names_cd import CHECKS as CD_CHECKS

    named_on = PIECE_CALLS | NAMED_BEYOND_CALLS | set(B_CHECKS) | set(CD_CHECKS)

    def share(mutants) -> float:
        return sum(1 for m in mutants if m.finding and m.check in named_on) / len(mutants)

    assert share(ALL) >= OVERALL, f"{share(ALL):.1%} of {len(ALL)}"
    for pid in "ABCD":
        mutants = [m for m in ALL if m.check.startswith(pid + ".")]
        assert share(mutants) >= PER_PROJECT, f"{pid}: {share(mutants):.1%} of {len(mutants)}"


@pytest.mark.parametrize("pid", ["A", "B", "C", "D"])
def test_the_bundle_names_no_mistake_on_the_reference_and_records_values_not_code(bundle, pid):
    data = json.loads((bundle / "capstone_check" / "expected" / f"{pid}.json").read_text())
    for cid, spec in data["checks"].items():
        if spec["kind"] == "calls" or "findings" in spec:
            result = kit_result(bundle, paths.SOLUTIONS.parent / "solutions", pid, cid)
            assert "named" not in result, (cid, result)
            recorded = [v for call in spec.get("calls", []) for v in call.get("mistakes", {}).values()]
            recorded += list(spec.get("mistakes", {}).values())
            assert all(isinstance(x, (int, float)) for values in recorded for x in values)


def test_the_search_finds_answers_under_other_names(tmp_path):
    """The search above compares syntax trees: a solution function or an oracle renamed into another file is found."""
    source = (paths.SOLUTIONS / "D_grpo" / "grpo.py").read_text()
    tree = ast.parse(source)
    solved = next(f for f in _functions(tree) if f.name == "price_exploit")
    oracle = (paths.PACKAGE / "projects" / "d_grpo" / "oracle.py").read_text()
    (tmp_path / "helpers.py").write_text("import numpy as np\n\n\n" + "\n".join(
        source.splitlines()[solved.lineno - 1:solved.end_lineno]).replace("def price_exploit", "def harmless"))
    (tmp_path / "judge.py").write_text(oracle.replace("def standardized", "def scale"))
    shipped, found = shipped_code(tmp_path), answers()
    leaked = {found[body] for body in found if body in shipped}
    assert {"grpo.py:price_exploit", f"{paths.PACKAGE / 'projects' / 'd_grpo' / 'oracle.py'}:standardized"} <= leaked


# ------------------------------------------------------------------------------------------------ where students work


# what a Python on Windows lacks and the checker or the given code might import
POSIX_ONLY = ("resource", "fcntl", "grp", "pwd", "termios", "tty", "pty", "syslog", "_posixshmem")
SITE = f"""import os, sys
for name in {POSIX_ONLY!r}:
    sys.modules[name] = None  # `import fcntl` fails, as on Windows
if hasattr(os, "fork"):
    del os.fork
"""
KITS_OWN = ("autograder", "capstone_check", "rlkit", "rl_capstone", "solutions", "assignments", "__editable__")


def _run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _dependencies_only(into: Path) -> Path:
    """A folder of links to this environment's installed packages, leaving out the kit and its editable hook."""
    into.mkdir()
    for folder in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}:
        for entry in Path(folder).iterdir():
            if not entry.name.startswith(KITS_OWN) and entry.suffix != ".pth" and not (into / entry.name).exists():
                (into / entry.name).symlink_to(entry)
    return into


@pytest.fixture(scope="session")
def students_python(bundle, tmp_path_factory) -> Path:
    """The Python of a fresh environment where only the students' wheel is installed (built from a copy of the
    bundle); its dependencies are this environment's, linked in without the kit, so no index is reached."""
    base = tmp_path_factory.mktemp("students-env")
    return _wheel_environment(bundle, base, lambda wheel: _dependencies_only(base / "dependencies"))


def _wheel_environment(bundle: Path, base: Path, dependencies) -> Path:
    """The Python of a new venv in ``base`` holding the wheel built from a copy of ``bundle``, installed offline, and
    the folder of packages ``dependencies(wheel)`` links in."""
    wheel = build_wheel(Path(shutil.copytree(bundle, base / "bundle")))
    _run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")])
    python = base / "venv" / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    (site / "dependencies.pth").write_text(f"{dependencies(wheel)}\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
          str(wheel)])
    return python


@pytest.fixture
def windows_like(tmp_path) -> dict:
    """An environment whose Pythons have none of ``POSIX_ONLY`` and no ``os.fork``, and whose PATH has no
    bubblewrap."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SITE)
    (tmp_path / "bin").mkdir()
    return {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "PATH": str(tmp_path / "bin")}


WHERE_FROM = """import importlib.util
import capstone_check.runner, rlkit
print(capstone_check.runner.EXPECTED)
print(rlkit.__file__)
print(importlib.util.find_spec("autograder"))
"""


def test_the_students_environment_holds_the_bundle_and_not_the_kit(students_python, tmp_path):
    expected, given, kit = _run([str(students_python), "-c", WHERE_FROM], cwd=tmp_path).stdout.splitlines()
    environment = students_python.parent.parent
    assert Path(expected).is_relative_to(environment) and (Path(expected) / "D.json").is_file()
    assert Path(given).is_relative_to(environment) and kit == "None"


def _rows(output: str) -> dict[str, str]:
    """Check id -> its mark (pass, part, fail, ----) in the checker's output."""
    return {words[0]: words[2] for words in map(str.split, output.splitlines())
            if len(words) > 2 and words[0][:2] in ("A.", "B.", "C.", "D.")}


def test_a_folder_named_relative_to_the_working_directory_is_checked(bundle, tmp_path):
    """`capstone-check C --folder C_diagnosis` from the folder above: every check's child works elsewhere, so the
    name is resolved before it reaches them."""
    copy_reference(tmp_path, "C_diagnosis")
    done = _run([sys.executable, "-m", "capstone_check", "C", "--folder", "C_diagnosis", "--checks",
                 "C.return_drop,C.fresh_runs"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(bundle)})
    assert _rows(done.stdout) == {"C.return_drop": "pass", "C.fresh_runs": "pass"}, done.stdout


def test_without_posix_modules_fork_or_bubblewrap_the_students_checker_checks_all_four_projects(
        students_python, windows_like, bundle):
    """The installed `capstone-check`, on the reference and on the stubs: every check the bundle runs passes on the
    one and fails on the other, "not implemented", and the checker says once what it cannot enforce."""
    probe = subprocess.run([str(students_python), "-c", "import fcntl"], env=windows_like, capture_output=True)
    assert probe.returncode != 0
    checker = [str(students_python.parent / "capstone-check"), "A", "B", "C", "D"]
    for root, mark in ((paths.SOLUTIONS, "pass"), (paths.ASSIGNMENTS, "fail")):
        done = _run(checker, env=windows_like, cwd=root)
        assert done.stdout.count("memory and CPU limits are not enforced here") == 1
        rows = _rows(done.stdout)
        assert {cid for cid, found in rows.items() if found != "----"} == {
            cid for pid in "ABCD" for cid in in_bundle(bundle, pid)}
        assert {found for found in rows.values() if found != "----"} == {mark}, done.stdout
    assert all(f"{pid} total: 0/" in done.stdout for pid in "ABCD")
    assert done.stdout.count("is not implemented yet") >= 4


def released_check_cell(check_id: str, folder: str) -> str:
    """The code of ``check_id``'s cell in the notebook nbgrader released, its last line printing the points."""
    notebook = json.loads((paths.ASSIGNMENTS / folder / f"{folder}.ipynb").read_text())
    cell = next("".join(c["source"]) for c in notebook["cells"] if f'"{check_id}"' in "".join(c["source"]))
    *body, last = cell.strip().splitlines()
    return "\n".join(body + [f"print('points', {last})"])


def _imported(source: str) -> set[str]:
    """The top-level names of the modules ``source`` imports (shell and magic lines left out); a relative import
    stays within its package."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_released_notebooks_import_nothing_of_the_kit(bundle):
    """nbgrader's release (what a hub hands out), which the bundle carries as it is: the check cells call the
    students' checker, and no code cell imports the kit."""
    released = sorted(paths.ASSIGNMENTS.glob("*/*.ipynb"))
    assert [notebook.name for notebook in released] == sorted(n.name for n in bundle.rglob("*.ipynb"))
    for notebook in released:
        copy = bundle / "capstone_check" / "projects" / notebook.parent.name / notebook.name
        assert copy.read_bytes() == notebook.read_bytes(), f"{copy} is not nbgrader's release"
        cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
        imported = set().union(*(_imported("".join(c["source"])) for c in cells))
        assert "autograder" not in imported and "capstone_check" in imported, notebook


def test_without_posix_modules_fork_or_bubblewrap_a_released_check_cell_runs_with_the_bundle_alone(
        students_python, windows_like):
    code = released_check_cell("D.weights", "D_grpo")
    for folder, points in ((paths.SOLUTIONS, "2.0"), (paths.ASSIGNMENTS, "0.0")):
        done = _run([str(students_python), "-c", code], cwd=folder / "D_grpo", env=windows_like)
        assert done.stdout.strip().endswith(f"points {points}"), done.stdout + done.stderr
    assert "not implemented" in done.stdout


def test_without_posix_modules_fork_or_bubblewrap_the_kit_grades_with_a_plain_child_and_says_so(windows_like, tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "course.yml").write_text(yaml.safe_dump(quick_course_data({"D": ("D.weights", "D.kl_penalty")})))
    done = _run([sys.executable, "-m", "autograder", "--course", str(course), "grade", str(paths.SOLUTIONS),
                 "--seeds", "public", "--projects", "D"], env=windows_like, cwd=tmp_path)
    assert "3/3" in done.stdout.replace(" ", "") and "no resource limits or no fork" in done.stderr


def _declared(wheel: Path) -> list[str]:
    """The requirements in the wheel's metadata (Requires-Dist)."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        lines = archive.read(metadata).decode().splitlines()
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")]


def _bundle_imports(bundle: Path) -> set[str]:
    """The top-level modules imported by the bundle's code, its projects' files and its notebooks' code cells."""
    sources = [path.read_text(encoding="utf-8") for path in bundle.rglob("*.py")]
    for notebook in bundle.rglob("*.ipynb"):
        sources += ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    own = {path.stem for path in bundle.rglob("*.py")} | {path.name for path in bundle.iterdir()}
    return {name for source in sources for name in _imported(source)} - set(sys.stdlib_module_names) - own


def test_the_wheel_declares_exactly_what_its_code_and_notebooks_import_and_the_readme_names_that_list(bundle):
    """The kit itself (imported only where the bundle holds no expected values) is no dependency of the wheel; the
    Student guide names the list."""
    from packaging.requirements import Requirement

    wheel = build_wheel(Path(shutil.copytree(bundle, bundle.parent / "for-metadata")))
    declared = {Requirement(r).name for r in _declared(wheel)}
    assert declared == _bundle_imports(bundle) - {"autograder"}
    students = (paths.KIT_ROOT / "docs" / "student-guide.md").read_text().split("## Install the students' kit", 1)[1]
    sentence = " ".join(students.split("```", 1)[0].split())
    named = sentence.split("installs with ", 1)[1].split(" on Python", 1)[0].replace(" and ", ", ").split(", ")
    assert sorted(named) == sorted(declared), sentence


def _closure(requirements: list[str]) -> dict:
    """The distributions ``requirements`` install, with theirs (markers as this machine evaluates them, no extras)."""
    from importlib.metadata import distribution

    from packaging.requirements import Requirement

    found, todo = {}, list(requirements)
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
            continue
        dist = distribution(requirement.name)
        if dist.metadata["Name"].lower() not in found:
            found[dist.metadata["Name"].lower()] = dist
            todo += dist.requires or []
    return found


def _declared_only(into: Path, requirements: list[str]) -> Path:
    """A folder of links to this environment's copies of ``requirements`` and what they require, nothing else."""
    into.mkdir()
    for dist in _closure(requirements).values():
        for top in {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}:
            source = Path(dist.locate_file(top))
            if source.exists() and not (into / top).exists():
                (into / top).symlink_to(source)
    return into


@pytest.fixture(scope="session")
def declared_python(bundle, tmp_path_factory) -> Path:
    """The Python of a fresh environment holding only the students' wheel and the dependencies it declares (linked
    from this environment's copies, so no index is reached)."""
    base = tmp_path_factory.mktemp("declared-env")
    return _wheel_environment(bundle, base, lambda wheel: _declared_only(base / "dependencies", _declared(wheel)))


@pytest.mark.parametrize("folder", ["A_ppo", "B_ablations", "C_diagnosis", "D_grpo"])
def test_a_released_notebooks_first_cell_and_check_cells_run_with_the_wheel_and_its_declared_dependencies_alone(
        declared_python, windows_like, folder, tmp_path):
    """On the released stubs, as a student starts: the first cell imports what the notebook uses, and each check
    cell says what is not implemented yet (or that final grading runs it) and scores 0."""
    cells = [c for c in json.loads((paths.ASSIGNMENTS / folder / f"{folder}.ipynb").read_text())["cells"]
             if c["cell_type"] == "code"]
    checks = ["".join(c["source"]) for c in cells if "grade_cell(" in "".join(c["source"])]
    lines = "\n".join(["".join(cells[0]["source"]), *checks]).splitlines()
    code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
    work = shutil.copytree(paths.ASSIGNMENTS / folder, tmp_path / folder)
    done = subprocess.run([str(declared_python), "-c", code], cwd=work, env={**windows_like, "MPLBACKEND": "Agg"},
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and "No module named" not in done.stdout + done.stderr, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith(f"{folder[0]}.")]
    assert len(said) == len(checks) and all(": 0 points here" in s or ": 0 / " in s for s in said), done.stdout


GUIDE_BLOCK = re.compile(r"^<!-- tested in: tests/test_student_kit.py -->\n```bash\n(.*?)^```$", re.M | re.S)


def test_the_student_guides_commands_work_as_written_with_the_wheel(declared_python, tmp_path):
    """The Student guide's block, word for word, in the environment of the wheel and its declared dependencies:
    `pip install` of the wheel (offline: everything it needs is there), `capstone-check start D`, `capstone-check D`."""
    block = GUIDE_BLOCK.search((paths.KIT_ROOT / "docs" / "student-guide.md").read_text(encoding="utf-8")).group(1)
    wheel = next((declared_python.parents[2] / "bundle").rglob("*.whl"))
    shutil.copy(wheel, tmp_path / wheel.name)
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "pip").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pip --python "{declared_python}" "$@" '
                               "--no-index --quiet\n")
    (shims / "pip").chmod(0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(shims), str(declared_python.parent), "/usr/bin", "/bin"]),
           "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"the Student guide's block failed:\n{block}\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "D_grpo" / "grpo.py").is_file(), "capstone-check start D made no D_grpo/"
    rows = _rows(done.stdout)
    assert rows and all(mark in ("fail", "----") for mark in rows.values()), done.stdout
    assert "not implemented" in done.stdout


LOCATING = {"A.gae": "gae", "D.kl_penalty": "kl_penalized_reward", "D.weights": "leave_one_out_weight",
            "D.grpo_step": "grpo_step", "C.return_drop": "return_drop", "C.explained_variance": "explained_variance",
            "A.update": "clipped_surrogate", "A.ratio": "importance_ratio", "A.clip_gradient": "clipped_surrogate"}


def test_the_bundle_says_where_an_output_departs_as_final_grading_does(bundle, tmp_path, course):
    """On mistakes nobody wrote by hand (three generated mutants of a piece of each locating check), the students'
    checker leads a failing row with the located statement final grading's report carries first, word for word (the
    others follow as the row's length leaves room, which a recognised mistake said in the row takes)."""
    from capstone_check.located import sentence
    from tests.support.mutations import generate

    said = 0
    for cid, function in LOCATING.items():
        pid = cid.split(".")[0]
        mutants = [m for m in generate(pid) if m.id.split(".")[1] == function]
        for i, mutant in enumerate(mutants[::max(1, len(mutants) // 3)][:3]):
            root = copy_reference(tmp_path / f"{cid}-{i}", mutant.folder)
            write_submission(root, mutant.source, mutant.folder, mutant.module)
            graded = grade_checks(root, course, checks=[cid])[cid]
            message, _ = kit_message(bundle, root, pid, cid)
            where = sentence(graded.get("located", [])[:1])[:-1]
            assert (where in message) if where else "Where it differs" not in message, (mutant.id, where, message)
            said += bool(where)
    assert said >= 4, f"only {said} of the sampled mutants' rows said where they depart"
