# Two commands do all set-up on a fresh machine: `make grade` and `make test`.
# Both create (or reuse) the virtual environment .venv and install the kit into it.
PYTHON ?= python3
VENV ?= .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: grade test release reference clean

# An existing venv is kept: making it again over itself with another interpreter would mix two Pythons.
# setuptools' banner about editable installs (folders named like the package may shadow it) is known and harmless here:
# filtered by its text, nothing else.
$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(VENV)/bin/python -m pip install --quiet -e '.[nbgrader,dask,test]'
	touch $(STAMP)

grade: $(STAMP)  ## grade the bundled reference solutions and print the score table
	$(VENV)/bin/autograder grade solutions

# The suite runs on two workers (pytest-xdist): tests/conftest.py keeps each module's tests on one of them.
test: $(STAMP)  ## lint, then run the kit's test suite
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest -n 2

release: $(STAMP)  ## regenerate assignments/ from solutions/
	$(VENV)/bin/autograder release

reference: $(STAMP)  ## rewrite docs/course-yml.md from the models that read course.yml
	$(VENV)/bin/python -m autograder.course_reference

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
