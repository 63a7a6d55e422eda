"""Bundles the kit's course (course.yml, nbgrader_config.py, solutions/, assignments/) into the built package as
``autograder/bundled/``, so an installed kit can make new course folders (``autograder init``). The checkout keeps
these files at its root, where it is a course folder itself; an editable install reads them from there."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

COURSE = ["course.yml", "nbgrader_config.py", "solutions", "assignments"]
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "course.private.yml", "gradebook.db")


class BuildWithCourse(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout's own course
            return
        here, bundled = Path(__file__).resolve().parent, Path(self.build_lib) / "autograder" / "bundled"
        if not all((here / name).exists() for name in COURSE):  # a tree without the course (an sdist made without it)
            raise SystemExit(f"cannot bundle the course: expected {', '.join(COURSE)} in {here}")
        shutil.rmtree(bundled, ignore_errors=True)
        bundled.mkdir(parents=True)
        for name in COURSE:
            source = here / name
            if source.is_dir():
                shutil.copytree(source, bundled / name, ignore=LEFT_OUT)
            else:
                shutil.copyfile(source, bundled / name)


setup(cmdclass={"build_py": BuildWithCourse})
