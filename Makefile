# Two commands do all the set-up on a fresh machine: `make book` and `make test`.
# Both create (or reuse) the project's virtual environment in .venv.
PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
PROFILE ?= demo
EXTRAS  := dev,gpu
STAMP   := $(VENV)/.installed
# torch is pinned to the CPU wheel in the same install command (an unpinned torch pulls a CUDA build).
TORCH   ?= torch==2.13.0

.PHONY: venv book test test-slow bench bench-gpu check-book clean-book toc rehearse lint format lab recovery recovery-seeds recovery-study

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt "$(TORCH)" -e ".[$(EXTRAS)]"
	@touch $@

venv: $(STAMP)

book: $(STAMP)
	$(BIN)/pluralign book --profile $(PROFILE)

# `make test` runs every test not marked slow, one pytest worker per core (pytest-xdist, at most 4; about 2 min on
# 2 cores); `make test-slow` the slow ones (real models, page builds in child processes, kill-and-resume runs), one
# worker per core as well: each test works in a folder of its own and waits on conditions, not on time. CI runs both
# (.ci/run).
test: $(STAMP)
	bash scripts/install-chromium.sh
	$(BIN)/python -m pytest -q -ra -m "not slow" -n auto --maxprocesses 4

test-slow: $(STAMP)
	bash scripts/install-chromium.sh
	$(BIN)/python -m pytest -q -ra -m slow -n auto --maxprocesses 4

# the paper profile rehearsed offline on CPU: tiny random-weight models and small data under every paper Hub id,
# a local server under every LLM endpoint name; pages in book/_executed/rehearsal, HTML in _build/rehearsal, then
# the headless-browser check of those pages; two pages at a time (1,124 s on 2 cores in a clean clone, 193 s with
# its cache filled; most of a clean run is Table 2's training page, 776 s, and the page reading its models)
rehearse: $(STAMP)
	bash scripts/install-chromium.sh
	BIN=$(abspath $(BIN)) bash scripts/rehearse.sh

# JupyterLab on the project's environment: notebooks/*.py open as notebooks on a click (jupytext), MyST rendered,
# saving writes the .py back (inputs only); the venv's kernel, the book's cache. Options: LAB_ARGS="--port 8890"
lab: $(STAMP)
	BIN=$(abspath $(BIN)) bash scripts/lab.sh $(LAB_ARGS)

# ruff: the style check CI runs (lint and formatting), and the formatter that fixes what it can
lint: $(STAMP)
	$(BIN)/ruff check lib tests bench scripts
	$(BIN)/ruff format --check lib tests bench scripts

format: $(STAMP)
	$(BIN)/ruff check --fix lib tests bench scripts
	$(BIN)/ruff format lib tests bench scripts

bench: $(STAMP)
	@set -e; for f in bench/bench_*.py; do [ "$$f" = bench/bench_gpu.py ] && continue; echo "== $$f"; $(BIN)/python $$f; done
	@echo "results in bench/results/"

# the papers' GPU path on one CUDA GPU, offline (about 4 minutes on an H100): the GPU tests, scoring and training of
# random-weight models of the papers' shapes on the shared hh-rlhf text, into bench/results/gpu.json (and gpu-runs/),
# which the performance page's GPU budget reads. Needs a CUDA torch (README: "At paper scale, on a GPU").
# BENCH_GPU_ARGS="--tiny" dry-runs every step on the CPU and records nothing.
bench-gpu: $(STAMP)
	$(BIN)/python bench/bench_gpu.py $(BENCH_GPU_ARGS)

# every method of the library against the demo's planted truth (the book's cached studies are reused); exits 1
# when a method row misses, so CI fails on a broken method. Another population: make recovery SEED=3
# Each method is also broken on purpose (pluralign.recovery.mutations): a broken variant its row does not catch
# fails too. SEED=commit: a seed derived from the commit (printed).
recovery: $(STAMP)
	$(BIN)/pluralign recovery $(if $(SEED),--seed $(SEED)) --out _build/recovery$(SEED).csv

# the method rows at seeds 1-4 (fresh simulated populations, nothing trained; seed 0 is `make recovery`'s), one seed
# per core at a time (each is one process on one core: two side by side took 31 s, one alone 29 s, on 2 cores); every
# seed runs, its output is printed in seed order, then it exits 1 if a method row missed at any of them
RECOVERY_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
recovery-seeds: $(STAMP)
	@mkdir -p _build; printf '%s\n' 1 2 3 4 | xargs -P $(RECOVERY_JOBS) -I{} sh -c \
	  '$(BIN)/pluralign recovery --seed {} --no-mutations --out _build/recovery-seed{}.csv \
	   >_build/recovery-seed{}.log 2>&1; echo $$? >_build/recovery-seed{}.rc'; \
	fail=0; for s in 1 2 3 4; do \
	  cat _build/recovery-seed$$s.log; [ "$$(cat _build/recovery-seed$$s.rc)" = 0 ] || fail=1; \
	done; exit $$fail

# How often the method rows fail a correct method: every method row on 1,000 fresh populations (seeds derived from
# "recovery-study-2"), written to bench/results/recovery_study.json, which the recovery page quotes. The runs are
# logged in the cache folder, and a rerun there keeps what was measured on the rows' current code (ARGS=--fresh:
# start over).
recovery-study: $(STAMP)
	$(BIN)/python bench/recovery_study.py --jobs 2 $(ARGS)

check-book: $(STAMP)
	bash scripts/install-chromium.sh
	$(BIN)/python -m pluralign.book.sitecheck _build/html

toc: $(STAMP)
	$(BIN)/pluralign toc --write

clean-book:
	rm -rf _build book/_executed
