# The two commands: `make test` and `make demo` (each bootstraps .venv on first use).
export NUMBA_CACHE_DIR := $(CURDIR)/.numba_cache
PY := .venv/bin/python

.PHONY: venv test demo build build-all
venv:
	@bash scripts/venv.sh

test: venv
	$(PY) -m pytest -q tests

demo: venv
	$(PY) scripts/demo.py

build: venv
	$(PY) scripts/build.py --platform host

build-all: venv
	$(PY) scripts/build.py --platform all
