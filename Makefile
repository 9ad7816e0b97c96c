# xlebench — two commands: `make demo` and `make test`. Both create .venv and install first.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test test-all lint bench clean install

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

# pytest exits 5 when it selects no test (e.g. a marker filter matching nothing): not a failure.
test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests selected"; exit 0; fi; exit $$rc

test-all: install
	$(BIN)/python -m pytest -m "" 

lint: install
	$(BIN)/ruff check xlebench tests benchmarks

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) outputs/cache outputs/benchmarks outputs/runs
