# xlebench — two commands: `make demo` and `make test`. Both create .venv and install first.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test test-all test-lmms lint bench clean install

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt torch==2.13.0
	$(PIP) install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

demo: install
	$(BIN)/xlebench

# The suite runs in one worker per core (pytest-xdist), each test file on one worker so that
# a file's module fixtures (a compiled benchmark) are built once: PYTEST_WORKERS=0 runs it in
# this process (the slow, ffmpeg and browser tiers do: they time kills and hold points).
# pytest exits 5 when it selects no test (e.g. a marker filter matching nothing): not a failure.
PYTEST_WORKERS ?= auto
test: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests selected"; exit 0; fi; exit $$rc

test-all: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile -m "" 

# lmms-eval gets its own environment: it pins av<16 (the main one has a newer av), and PyPI's
# torchvision wheel is the CUDA build, which cannot load beside the CPU torch pinned here; the
# exported tasks do not need torchvision (transformers imports it only when it is installed).
LMMS_VENV := .venv-lmms
$(LMMS_VENV)/.installed: pyproject.toml constraints.txt
	test -x $(LMMS_VENV)/bin/python || $(PYTHON) -m venv $(LMMS_VENV)
	$(LMMS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LMMS_VENV)/bin/python -m pip install --quiet -c constraints.txt torch==2.13.0
	$(LMMS_VENV)/bin/python -m pip install --quiet -c constraints.txt -e ".[dev,lmms]"
	$(LMMS_VENV)/bin/python -m pip uninstall --quiet -y torchvision
	touch $@

test-lmms: $(LMMS_VENV)/.installed
	$(LMMS_VENV)/bin/python -m pytest -m lmms $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check xlebench tests benchmarks

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(LMMS_VENV) outputs/cache outputs/benchmarks outputs/runs
