# Every target creates its virtual environment (python3 -m venv) and installs sonnx into it when
# missing, so a fresh machine with only python3 needs nothing else.
#
# The development venv (.venv) is installed from the lock file requirements/dev.lock: every direct
# and transitive dependency at an exact version, with hashes (uv pip compile; see `make lock` and `make lock-add`).
# pyproject.toml keeps loose ranges for people who install sonnx as a library.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.sonnx-installed
LOCK   := requirements/dev.lock
# `make example` needs only what sonnx itself imports: its own venv from requirements/run.lock, the runtime
# dependencies and the build back end, pinned to the same versions as the dev lock (about 13 packages, not 100).
RUN_VENV  := .venv-run
RUN_LOCK  := requirements/run.lock
RUN_STAMP := $(RUN_VENV)/.sonnx-installed
# The tool that writes the lock, pinned: `make lock` installs it into its own venv.
UV_VERSION := 0.13.9
TOOLS  := .venv-tools
LATEST := .venv-latest

.PHONY: help venv example dist test lint typecheck pytest docs lock lock-add test-latest fuzz fuzz-smt fuzz-smt-chunk \
        fuzz-smt-dask fuzz-files fuzz-soundness fuzz-evidence corpus-budget mutate bench examples traceability rule-texts \
        smt-comments proofs-readme wg-tags clean corpus proofs coq-test coq-diff-long docs-screenshots

help:
	@echo "make example         check a shipped example model with sonnx-check (runtime dependencies only, in .venv-run)"
	@echo "make dist            build a wheel and an sdist of this checkout into dist/"
	@echo "make test            lint, type-check, the Coq check, the whole test suite and the docs build (what CI runs)"
	@echo "make proofs          the Coq development of proofs/coq (no Admitted, assumptions listed), the differential"
	@echo "                     test of sonnx.model.semantics against the extracted Coq runner, and the z3 theorems"
	@echo "make coq-diff-long   the differential test against the extracted Coq runners on 60000 flat and 40000 nested graphs"
	@echo "make venv            create .venv and install sonnx from the lock file"
	@echo "make lint            ruff, and the import contracts of ARCHITECTURE.md (lint-imports)"
	@echo "make typecheck       mypy over src/sonnx"
	@echo "make pytest          the test suite alone (a worker per core; TEST_WORKERS=0 for one process)"
	@echo "make docs            build the Sphinx site (warnings are errors) into docs/_build/html and check its links"
	@echo "make docs-screenshots the built site in headless Chromium: screenshots and overflow report (not in CI)"
	@echo "make lock            refresh requirements/dev.lock to the newest releases (uv $(UV_VERSION))"
	@echo "make lock-add        add a new dependency to requirements/dev.lock, upgrading nothing else"
	@echo "make test-latest     the whole of 'make test' against the newest releases, in $(LATEST) (not in CI)"
	@echo "make corpus          the real-export corpus tests, the heavy one on every model, and time budgets (not in CI)"
	@echo "make fuzz            long Hypothesis campaign (not in CI)"
	@echo "make fuzz-smt        the engines' differential campaign, 10,000 examples per generator (not in CI)"
	@echo "make fuzz-smt-chunk  the same campaign with N examples: make fuzz-smt-chunk N=1000 (not in CI)"
	@echo "make fuzz-smt-dask   the campaign in CHUNKS chunks of N examples over Dask (WORKERS=, SCHEDULER=, SEED=; not in CI)"
	@echo "make fuzz-files      5,000 mutated model files through every subcommand (MUTANTS=, SEED=, START=, JOBS=; not in CI)"
	@echo "make fuzz-soundness  10,000 models: every PROVED of R2/determinism against onnxruntime and onnx.reference (N=, SEED=, START=, JOBS=; not in CI)"
	@echo "make fuzz-evidence   every hash-consistent forgery of real evidence bundles against evidence verify (N=, SEED=, JOBS=; not in CI)"
	@echo "make corpus-budget   every subcommand on every real export of tests/data/real within its stated budget (not in CI)"
	@echo "make mutate          mutation testing of src/sonnx/rules and src/sonnx/smt with mutmut (not in CI)"
	@echo "make bench           every benchmark of benchmarks/ (BENCH='smt equiv' for some; not in CI)"
	@echo "make examples        regenerate examples/*.onnx"
	@echo "make rule-texts      regenerate the rules' titles, statements and rationales from spec/graph.rst"
	@echo "                     (src/sonnx/data/rule_texts.json; fails naming each rule the spec gives no rationale)"
	@echo "make traceability    regenerate the rule texts, then the packaged traceability matrix (src/sonnx/data/traceability.json)"
	@echo "make wg-tags         regenerate the inventory of the working group's operator statements from a mirror"
	@echo "                     (WG_MIRROR=; src/sonnx/data/wg_operator_tags.json) and check the coverage table"
	@echo "make smt-comments    regenerate the reviewed comments of the exported SMT-LIB files (tests/data/smt_comments.txt)"
	@echo "make proofs-readme   regenerate proofs/README.md from the theorem modules"
	@echo "make clean           remove the venvs, build outputs and caches"

$(STAMP): pyproject.toml $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check --disable-pip-version-check
	@touch $(STAMP)

venv: $(STAMP)

$(RUN_STAMP): pyproject.toml $(RUN_LOCK)
	@test -x $(RUN_VENV)/bin/python || $(PYTHON) -m venv $(RUN_VENV)
	$(RUN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r $(RUN_LOCK)
	$(RUN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(RUN_VENV)/bin/python -m pip check --disable-pip-version-check
	@touch $(RUN_STAMP)

example: $(RUN_STAMP)
	$(RUN_VENV)/bin/sonnx-check examples/cnn_block.onnx

# A wheel and an sdist of this checkout in dist/, built with the locked back end (the version comes from git).
dist: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w dist .
	$(BIN)/python -c "from setuptools import build_meta; build_meta.build_sdist('dist')" >/dev/null
	@ls dist

lint: $(STAMP)
	$(BIN)/ruff check src tests examples benchmarks proofs tools
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite runs in one worker process per core (pytest-xdist), a test file to a worker, so that a
# module's fixtures are built once; TEST_WORKERS=0 runs it in this process alone. The files of the longest
# tests start first (tests/common/schedule.py), an order --no-loadscope-reorder keeps. The suite's run of every
# theorem in one process is recorded in build/proofs-verified for the docs build (proofs/_record.py).
TEST_WORKERS ?= auto
pytest: $(STAMP)
	SONNX_PROOF_RECORDS=$(CURDIR)/build/proofs-verified $(BIN)/python -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)

# The build runs nitpicky (every cross-reference must resolve) with warnings as errors, then
# tools/site_check.py checks the built HTML: internal links and anchors, unresolved references,
# highlighted help texts, the spec's rule headings and the stylesheet.
docs: $(STAMP)
	$(BIN)/python -m sphinx -W -b html docs docs/_build/html
	$(BIN)/python -m tools.site_check docs/_build/html

# Screenshots of the built site in headless Chromium (needs a chromium binary; not in CI), at a laptop's
# and a wide screen's width, into docs/_build/screenshots; also reports elements wider than the page.
docs-screenshots: docs
	$(BIN)/python -m tools.site_screenshots docs/_build/html docs/_build/screenshots

# The Coq check in `make test`: without coqc it installs Debian's coq when run as root, and otherwise
# prints a loud NOT RUN line and says so in the summary below (a failure only under CI=true).
coq-test: $(STAMP)
	$(BIN)/python -m tools.coq_check --if-available

# lint, the type check and the Coq check read nothing the others write: they run side by side (each one's
# output printed whole when it ends), so that on a shared machine they hold two cores' worth of time slices
# instead of one; then the suite (which reads the Coq check's record) and the docs, one after the other.
test: $(STAMP)
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck coq-test
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory docs
	@echo "make test: lint, typecheck, pytest and docs passed; Coq check: $$(cat build/coq-status.txt)"

# The theorems: the Coq development of proofs/coq (tools/coq_check.py; coqc is required), the runner
# extracted from it (tools/coq_runner.py) and the differential test of the Python semantics and the
# compiled plan against that runner, and the z3 theorem modules of proofs/ (python -m proofs).
proofs: $(STAMP)
	$(BIN)/python -m tools.coq_check --fresh
	$(BIN)/python -m tools.coq_runner
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/model/test_coq_runner.py
	$(BIN)/python -m proofs

coq-diff-long: $(STAMP)
	SONNX_COQ_DIFF_GRAPHS=60000 $(BIN)/python -m pytest -q -p no:cacheprovider tests/model/test_coq_runner.py

# CI runs the heavy corpus test (three schedules, both cross-checks, an evidence bundle) on a named
# selection of tests/data/real (HEAVY_IN_CI in tests/corpus/test_real_models.py); this runs it on every model,
# and the subcommands on the corpus (tests/corpus/test_real_subcommands.py).
corpus: $(STAMP)
	SONNX_CORPUS=all $(BIN)/python -m pytest -q tests/corpus/test_real_models.py tests/corpus/test_real_subcommands.py

# The lock: pyproject.toml's runtime and dev dependencies plus the build back end, resolved for every
# platform and Python version sonnx supports (--universal), with the hashes of every file.
# `make lock` moves every package to its newest release the ranges admit (--upgrade). `make lock-add`
# keeps every version already locked and only adds what a new or widened requirement needs: use it
# after adding a dependency, then check with `git diff requirements/dev.lock` that nothing else moved.
UV_COMPILE = $(TOOLS)/bin/uv pip compile pyproject.toml requirements/build.in --extra dev --universal \
	--generate-hashes --quiet -o $(LOCK)
# The runtime lock of `make example`: the same versions as the dev lock, only the runtime subset.
UV_RUN = $(TOOLS)/bin/uv pip compile pyproject.toml requirements/build.in --universal --generate-hashes --quiet \
	-c $(LOCK) -o $(RUN_LOCK)

$(TOOLS)/bin/uv:
	$(PYTHON) -m venv $(TOOLS) && $(TOOLS)/bin/python -m pip install --quiet uv==$(UV_VERSION)

lock: $(TOOLS)/bin/uv
	$(UV_COMPILE) --upgrade
	$(UV_RUN)
	@echo "wrote $(LOCK); run 'make test' before committing it"

lock-add: $(TOOLS)/bin/uv
	$(UV_COMPILE)
	$(UV_RUN)
	@echo "wrote $(LOCK) without upgrading; check 'git diff $(LOCK)', run 'make test' before committing it"

# Drift detection: the newest release of every dependency the ranges admit, in a venv of its own.
test-latest:
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip setuptools wheel
	$(LATEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade --upgrade-strategy eager -e '.[dev]'
	$(LATEST)/bin/python -m pip freeze --all --exclude-editable > $(LATEST)/versions.txt
	@touch $(LATEST)/.sonnx-installed
	@echo "newest releases in $(LATEST)/versions.txt; differences from $(LOCK):"
	@$(LATEST)/bin/python requirements/compare.py $(LOCK) $(LATEST)/versions.txt
	$(MAKE) --no-print-directory test VENV=$(LATEST)

fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q tests -k "hypothesis or property or fuzz"

SMT_CAMPAIGN := tests/smt/test_property_differential.py tests/smt/test_property_functions.py

fuzz-smt: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q --hypothesis-show-statistics $(SMT_CAMPAIGN)

N ?= 1000
fuzz-smt-chunk: $(STAMP)
	HYPOTHESIS_PROFILE=chunk HYPOTHESIS_MAX_EXAMPLES=$(N) $(BIN)/python -m pytest -q --hypothesis-show-statistics $(SMT_CAMPAIGN)

# The same campaign spread over a Dask cluster: CHUNKS chunks of N examples per test, chunk k seeded SEED + k,
# on a LocalCluster of WORKERS processes (default: the cores) or the cluster at SCHEDULER=tcp://HOST:PORT.
CHUNKS ?= 8
WORKERS ?=
SCHEDULER ?=
fuzz-smt-dask: $(STAMP)
	$(BIN)/python -m tools.fuzz_smt_dask --chunks $(CHUNKS) --examples $(N) --seed $(SEED) \
		$(if $(WORKERS),--workers $(WORKERS)) $(if $(SCHEDULER),--scheduler $(SCHEDULER)) --out fuzz-smt-dask

MUTANTS ?= 5000
START ?= 0
JOBS ?= 1
SEED ?= 1
fuzz-files: $(STAMP)
	$(BIN)/python -m tests.fuzz.files --mutants $(MUTANTS) --seed $(SEED) --start $(START) --jobs $(JOBS) --save fuzz-failures

# Soundness campaign: models hiding each nondeterminism source; a PROVED on a model whose runs differ is saved.
SOUNDNESS_N ?= 10000
fuzz-soundness: $(STAMP)
	$(BIN)/python -m tests.fuzz.soundness --models $(if $(filter command line,$(origin N)),$(N),$(SOUNDNESS_N)) \
		--seed $(SEED) --start $(START) --jobs $(JOBS) --save fuzz-soundness

# Tamper campaign: edits of real evidence bundles, rehashed; every edit verify accepts is a survivor (N=0: all).
EVIDENCE_N ?= 0
fuzz-evidence: $(STAMP)
	$(BIN)/python -m tests.fuzz.evidence_campaign --mutants $(if $(filter command line,$(origin N)),$(N),$(EVIDENCE_N)) \
		--seed $(SEED) --jobs $(JOBS) --out fuzz-evidence.json

corpus-budget: $(STAMP)
	$(BIN)/python -m tests.corpus.budget_campaign --out corpus-budget.json

# Mutation testing: mutmut works in ./mutants (a copy of the tree), resumes where it stopped, and
# `mutmut results` lists the survivors; docs/mutation.rst records the last campaign.
mutate: $(STAMP)
	$(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut results > mutation-results.txt; tail -5 mutation-results.txt

BENCH ?=
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH)

examples: $(STAMP)
	$(BIN)/python examples/make_examples.py

clean:
	rm -rf $(VENV) $(RUN_VENV) $(TOOLS) $(LATEST) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache

# The rules' words come from the spec; the matrix copies them, so the texts are regenerated first.
rule-texts: $(STAMP)
	$(BIN)/python -m tools.rule_texts

traceability: rule-texts
	$(BIN)/python -m tools.traceability

# The inventory of the working group's operator statements, from a local mirror of onnx/working-groups
# (WG_MIRROR=<git dir>); then the coverage table's check of the classification.
WG_MIRROR ?= /work/.mirror/onnx+working-groups/repo
wg-tags: $(STAMP)
	$(BIN)/python -m tools.wg_tags --mirror $(WG_MIRROR)
	$(BIN)/python -m tools.wg_operator_coverage

smt-comments: $(STAMP)
	$(BIN)/python -m tools.smt_comments

proofs-readme: $(STAMP)
	$(BIN)/python -m proofs.readme
