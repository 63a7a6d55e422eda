# Two commands do all set-up on a fresh machine: `make grade` and `make test`.
# Both create (or reuse) the virtual environment .venv and install the kit into it.
# Run as root, the sandbox drops student code to uids of its own, which must be able to start the venv's Python: a
# python3 under a folder closed to others (pyenv's, under root's home) is out of their reach, so the system's is used
# then, as .ci/run does; with neither, make stops and says how. PYTHON=... on the command line is taken as given.
REACHABLE := import os, sys; from pathlib import Path; e = Path(sys.executable); \
	sys.exit(not all(os.stat(p).st_mode & 0o001 for x in (e, e.resolve()) for p in (x, *x.parents)))
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell if [ "$$(id -u)" != 0 ] || python3 -c '$(REACHABLE)' 2>/dev/null; then echo python3; \
	elif [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; fi)
endif
VENV ?= .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: grade test test-fast docs pictures release reference clean

# An existing venv is kept: making it again over itself with another interpreter would mix two Pythons.
# setuptools' banner about editable installs (folders named like the package may shadow it) is known and harmless here:
# filtered by its text, nothing else.
$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "make: run as root, and python3 lies where the sandbox's uids cannot run it (no" \
		"/usr/bin/python3 either): install Python where other users can read it, or pass PYTHON=/path/to/python3" >&2; \
		exit 2; }
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(VENV)/bin/python -m pip install --quiet -e '.[nbgrader,dask,docs,test]'
	touch $(STAMP)

grade: $(STAMP)  ## grade the bundled reference solutions and print the score table
	$(VENV)/bin/autograder grade solutions

# The suite runs on two workers (pytest-xdist): tests/conftest.py keeps each module's tests on one of them.
test: $(STAMP)  ## lint, then run the kit's test suite
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest -n 2

# The inner loop: the suite without its end-to-end modules (marked slow), on both cores, in a few minutes.
test-fast: $(STAMP)  ## lint, then run the suite without its slow end-to-end modules
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest -n 2 -m "not slow"

docs: $(STAMP)  ## build the documentation site into site/ (open site/index.html); grades the reference for its pictures
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The pages read in the repository show the pictures too: the build's photographs (not the figures, which only the
# generated figures page shows), copied into docs/img.
pictures: docs  ## copy the site's photographs into docs/img, where the pages read as Markdown find them
	mkdir -p docs/img
	for png in site/img/*.png; do case $${png##*/} in figure-*) ;; *) cp $$png docs/img/ ;; esac; done

release: $(STAMP)  ## regenerate assignments/ from solutions/
	$(VENV)/bin/autograder release

reference: $(STAMP)  ## rewrite docs/course-yml.md from the models that read course.yml
	$(VENV)/bin/python -m autograder.course_reference

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache site
