# The two commands of the README. Each does all set-up itself on a fresh machine and is
# idempotent: the venv is re-installed only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test setup clean

demo: $(STAMP)
	$(BIN)/ascendcraft demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build from the local wheel store; a bare `torch` could pull a CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV)
