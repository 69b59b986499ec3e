# planrag — developer entry points. `make run` and `make test` set up .venv first when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup run test lint format bench clean

setup: $(STAMP)

# Re-installs when the package metadata changes (a stale venv). scripts/setup.sh checks the
# Python version first, prints each step and installs a CPU build of torch.
$(STAMP): pyproject.toml
	@PYTHON="$(PYTHON)" VENV="$(VENV)" scripts/setup.sh
	@touch $(STAMP)

run: setup
	$(BIN)/planrag serve --host $(HOST) --port $(PORT)

test: setup
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q $(PYTEST_ARGS)

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
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
