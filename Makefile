# planrag — developer entry points. `make run` and `make test` set up .venv first when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB := web
WEB_STAMP := $(WEB)/dist/.built
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/public -type f 2>/dev/null) \
	$(wildcard $(WEB)/index.html $(WEB)/package.json $(WEB)/package-lock.json $(WEB)/vite.config.ts $(WEB)/tsconfig.json)
HOST ?= 127.0.0.1
PORT ?= 8000

export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup environment console run test lint format bench clean

# The last line names the address `make run` serves (HOST and PORT as given to make).
# The Python environment and the web console are built at the same time (-j2): pip mostly waits
# on one core, so the console's npm ci + Vite build costs no wall time beside it.
setup:
	@$(MAKE) --no-print-directory -j2 environment
	@echo "setup: done. Next: make run (serves http://$(HOST):$(PORT)) or make test"

environment: $(STAMP) $(WEB_STAMP)
	@:

console: $(WEB_STAMP)

# Re-installs when the package metadata changes (a stale venv). scripts/setup.sh checks the
# Python version first, prints each step and installs a CPU build of torch.
$(STAMP): pyproject.toml
	@PYTHON="$(PYTHON)" VENV="$(VENV)" scripts/setup.sh
	@touch $(STAMP)

# The web console (served at /): rebuilt when web/ changes, if Node.js >= 20.19 is installed
# (what Vite needs); npm ci only when the lockfile is newer than node_modules. Without Node the
# server still runs and / says how to build it.
$(WEB_STAMP): $(WEB_SOURCES)
	@if node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null; then \
	  echo "console: building web/ with Node $$(node -v): npm ci (if needed) && npm run build"; \
	  cd $(WEB) && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } \
	    && npm run build --silent -- --logLevel warn && touch dist/.built; \
	else \
	  echo "console: Node.js >= 20.19 not found ($$(node -v 2>/dev/null || echo none)): web/ not built; the API runs, / says how to build it"; \
	fi

run: setup
	$(BIN)/planrag serve --host $(HOST) --port $(PORT)

# The suite runs on one worker per core (at most 4: each worker starts its own PostgreSQL, graph
# servers and model), whole test files per worker so module fixtures are built once.
# PYTEST_XDIST="-n 0" runs it in one process.
# The 25 slowest steps are listed at the end, so a run (CI's too) says where the time went.
PYTEST_XDIST ?= -n auto --maxprocesses 4 --dist loadfile
PYTEST_DURATIONS ?= --durations=25
test: setup
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q $(PYTEST_XDIST) $(PYTEST_DURATIONS) $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check planrag tests bench
	$(BIN)/ruff format --check planrag tests bench
	$(BIN)/mypy

format: setup
	$(BIN)/ruff format planrag tests bench
	$(BIN)/ruff check --fix planrag tests bench

bench: setup
	HF_HUB_OFFLINE=1 $(BIN)/python -m bench.ingest
	HF_HUB_OFFLINE=1 $(BIN)/python -m bench.ann
	HF_HUB_OFFLINE=1 $(BIN)/python -m bench.latency
	HF_HUB_OFFLINE=1 $(BIN)/python -m bench.strategies

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache $(WEB)/dist $(WEB)/node_modules
