# Two entry points: `make demo` (diagnose a bundled example) and `make test`.
# Both create .venv on first use: CPU torch first (a plain `torch` would pull a CUDA build), then the project.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

.PHONY: install demo test eval bench starter-vectors snapshots
install: $(STAMP)

demo: $(STAMP)
	$(BIN)/diagnose examples/zero3_load_state_dict.txt

test: $(STAMP)
	$(BIN)/python -m pytest -q

eval: $(STAMP)
	$(BIN)/triage eval --cv ../shared/eval/dev tests/data/eval_*

bench: $(STAMP)
	$(BIN)/python -m bench.run

# The starter KB's chunk vectors, shipped as package data (kb/data/starter_vectors/): refresh after editing
# kb/data/entries or the int8 encoder's recipe. A stale file is never wrong, only slower: chunks it does not cover
# are embedded at first use.
starter-vectors: $(STAMP)
	$(BIN)/python -m ingest.starter

snapshots: $(STAMP)
	$(BIN)/python -m tests.signature_snapshots
