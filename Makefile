# The two set-up commands: `make run` and `make test`. Both create the venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench bench-server bench-cluster bench-standings lint typecheck clean sim cluster cluster-stop

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/capicua serve

# A cluster on this machine: redis, PostgreSQL, two servers, a worker, HAProxy (docs/deploy.md).
cluster: $(STAMP)
	bash scripts/cluster.sh

cluster-stop:
	bash scripts/cluster.sh stop

test: $(STAMP)
	bash scripts/ensure-system-deps.sh
	$(BIN)/ruff check capicua tests
	$(BIN)/mypy capicua
	$(BIN)/pytest -q -n 2 --dist loadgroup

bench: $(STAMP)
	$(BIN)/capicua bench

bench-server: $(STAMP)
	$(BIN)/capicua bench-server

# Starts its own redis-server, PostgreSQL, HAProxy and servers (docs/deploy.md, "Benchmark").
bench-cluster: $(STAMP)
	$(BIN)/capicua bench-cluster

bench-standings: $(STAMP)
	$(BIN)/capicua bench-standings

sim: $(STAMP)
	$(BIN)/capicua sim --preset cubano --matches 20 --seed 1 --bot botagorda

lint: $(STAMP)
	$(BIN)/ruff check capicua tests

typecheck: $(STAMP)
	$(BIN)/mypy capicua

clean:
	rm -rf $(VENV) data .cluster .pytest_cache .mypy_cache .ruff_cache
