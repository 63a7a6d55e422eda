"""The kit as an instructor installs it: a built wheel in a fresh environment (no editable install, no checkout),
used from a course folder made by `autograder init`; the install location is never written to."""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.sandbox import jail

from tests.support.alone import install_the_rest, kit_requirements, link_distributions, reachable_folder
from tests.support.grading import quick_course_data

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

KIT = paths.KIT_ROOT
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "course.yml", "nbgrader_config.py",
           "autograder", "rlkit", "capstone_check", "solutions", "assignments"]
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "course.private.yml", "gradebook.db")


def run(argv, cwd, **kwargs):
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.stat().st_mode, p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(folder.rglob("*"))}


def built_wheel(base: Path) -> Path:
    """The kit's wheel, built from a copy of its sources into ``base``/dist without reaching an index."""
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        (shutil.copytree if (KIT / name).is_dir() else shutil.copy)(KIT / name, source / name, **(
            {"ignore": IGNORE} if (KIT / name).is_dir() else {}))
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(base / "dist"),
         str(source)], base)
    return next((base / "dist").glob("*.whl"))


def venv_with_the_wheel(base: Path, provide_dependencies) -> tuple[Path, Path]:
    """A new venv in ``base`` (and its site-packages) holding the kit's wheel, installed offline without its
    dependencies; ``provide_dependencies(site)`` puts them within its reach first."""
    wheel = built_wheel(base)
    venv = base / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base)
    python = venv / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], base).stdout.strip())
    provide_dependencies(site)
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
         str(wheel)], base)
    return venv, site


def venv_with_the_extra(extra: str) -> tuple[Path, Path, Path]:
    """As ``pip install '.[extra]'`` makes it, with the distributions linked from the test environment (no index is
    reached), in a folder every uid may pass through (so the sandbox drops student code to a uid of its own, as from
    an instructor's venv): (that folder, the venv, its site-packages)."""
    base = reachable_folder(f"{extra}-kit-")
    names = kit_requirements((extra,))
    venv, site = venv_with_the_wheel(base, lambda site: (link_distributions(names, site),
                                                         install_the_rest(names, base / "venv", site)))
    return base, venv, site


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh environment holding the kit's wheel; its dependencies come from the test environment (a path entry,
    so no index is reached), and its Python and the `autograder` command are the environment's own."""
    if not (KIT / "setup.py").is_file():
        pytest.skip("the kit's sources are not here (the tests run from an installed kit)")
    base = tmp_path_factory.mktemp("install")
    venv, site = venv_with_the_wheel(base, lambda site: (site / "deps.pth").write_text(
        sysconfig.get_path("purelib") + "\n"))
    python = venv / "bin" / "python"
    package = site / "autograder"
    return {"base": base, "python": python, "autograder": venv / "bin" / "autograder", "package": package,
            "env": {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}}


def test_the_installed_kit_runs_from_its_own_location_not_the_checkout(installed):
    where = run([str(installed["python"]), "-c", "import autograder.paths as p; print(p.PACKAGE); print(p.BUNDLED)"],
                installed["base"]).stdout.split()
    assert where == [str(installed["package"]), str(installed["package"] / "bundled")]
    assert (installed["package"] / "bundled" / "solutions" / "D_grpo" / "grpo.py").is_file()


def test_init_grade_and_release_in_a_course_folder_never_write_the_install_location(installed):
    before = snapshot(installed["package"])
    course = installed["base"] / "my-course"
    run([str(installed["autograder"]), "init", str(course)], installed["base"], env=installed["env"])
    data = quick_course_data({"D": ("D.weights", "D.kl_penalty")}, course / "course.yml")  # fast: D's quick checks
    data["limits"]["isolation"] = "uid"  # the dependencies' path entry lies outside what bubblewrap would mount
    (course / "course.yml").write_text(yaml.safe_dump(data))
    (course / "solutions" / "D_grpo" / "D_grpo.ipynb").unlink()  # release without nbgrader's run: quick
    graded = run([str(installed["autograder"]), "grade", "solutions", "--seeds", "public"], course,
                 env=installed["env"])
    assert "D total" in graded.stdout and "2/2" in graded.stdout.replace(" ", "")
    run([str(installed["autograder"]), "release", "D_grpo"], course / "solutions", env=installed["env"])
    assert "raise NotImplementedError()" in (course / "assignments" / "D_grpo" / "grpo.py").read_text()
    run([str(installed["autograder"]), "gradescope", "--out", "ag.zip"], course, env=installed["env"])
    with zipfile.ZipFile(course / "ag.zip") as archive:
        names = archive.namelist()
        assert "autograder/cli.py" in names and "numpy" in archive.read("requirements.txt").decode()
        assert not [n for n in names if "bundled" in n or "solutions" in n]
        assert archive.read("course.yml") == (course / "course.yml").read_bytes()
    assert snapshot(installed["package"]) == before


def test_the_runtime_a_child_imports_holds_neither_the_bundled_course_nor_an_oracle(installed):
    code = ("import os; from autograder.sandbox.runtime import staged\n"
            "with staged() as root:\n"
            "    kit = root / 'autograder'\n"
            "    print(sorted(os.listdir(kit)))\n"
            "    print((kit / 'projects' / 'd_grpo' / 'oracle.py').read_text())")
    listing, stub = run([str(installed["python"]), "-c", code], installed["base"]).stdout.split("\n", 1)
    assert "bundled" not in listing and "cli.py" in listing
    assert "not available to code running in the sandbox" in stub and "def " in stub


def test_the_installed_kit_says_where_it_looked_for_a_course(installed):
    done = subprocess.run([str(installed["autograder"]), "grade", "."], cwd=installed["base"], capture_output=True,
                          text=True, env=installed["env"])
    assert done.returncode == 2
    assert f"no course.yml in {installed['base']}" in done.stderr and "autograder init" in done.stderr


def test_bubblewrap_hides_a_kit_installed_in_the_python_environment(tmp_path, monkeypatch):
    prefix = tmp_path / "env"
    package = prefix / "lib" / "site-packages" / "autograder"
    (package / "projects").mkdir(parents=True)
    (package / "projects" / "oracle.py").write_text("REFERENCE = 1\n")
    monkeypatch.setattr(sys, "prefix", str(prefix))

    def listing(kit: Path) -> str:  # the environment is bound explicitly: the sandbox's own /tmp hides tmp_path
        monkeypatch.setattr(paths, "PACKAGE", kit)
        argv = jail.command([sys.executable, "-S", "-c", f"import os; print(os.listdir({str(package)!r}))"],
                            readable=[str(prefix)], writable=[], workdir="/")
        return argv, subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()

    if jail._try(None):
        pytest.skip(f"bubblewrap cannot run here: {jail._try(None)}")
    argv, seen = listing(package)
    assert argv[argv.index("--chdir") - 2:argv.index("--chdir")] == ["--tmpfs", str(package)] and seen == "[]"
    argv, seen = listing(tmp_path / "checkout" / "autograder")  # a kit outside the environment: nothing to hide
    assert str(tmp_path / "checkout") not in argv and seen == "['projects']"
