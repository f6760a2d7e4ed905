# The two commands of the README. Each does all set-up itself on a fresh machine and is
# idempotent: the venv is re-installed only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest workers (pytest-xdist): a test file runs whole on one worker, so module fixtures run once.
TEST_WORKERS ?= 2

.PHONY: demo test test-fast setup clean extension lab

demo: $(STAMP)
	$(BIN)/ascendcraft demo

test: $(STAMP) extension
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25
	PYTHON=$(CURDIR)/$(BIN)/python bash tests/ui/run_ui_tests.sh

# The inner loop: no C++ compile, no child process (tests marked `heavy` are left out, and the
# conftest refuses a process started by any other test), well under two minutes.
test-fast: $(STAMP)
	ASCENDCRAFT_TEST_TIER=fast $(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not heavy" --durations=10

# The JupyterLab extension: rebuilt only when its sources changed (see extension/README.md).
extension: $(STAMP)
	PYTHON=$(CURDIR)/$(BIN)/python bash extension/build.sh

lab: extension
	$(BIN)/ascendcraft lab

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build from the local wheel store; a bare `torch` could pull a CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	# The extension is built by extension/build.sh (make extension), not inside pip.
	HATCH_JUPYTER_BUILDER_SKIP_NPM=1 $(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV)
