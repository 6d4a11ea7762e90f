# Two commands do everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Spark 3.5 (Databricks LTS runtimes) in a venv of its own, with the pandas/NumPy/Arrow it supports.
VENV35 := .venv-spark35
INSTALLED35 := $(VENV35)/.installed
SPARK35_PINS := 'pyspark[connect]~=3.5.9' 'pandas~=2.2.3' 'numpy~=1.26.4' 'pyarrow~=17.0'
# dbt-databricks in a venv of its own: it pins dbt-core and dbt-spark versions of its own.
VENVDBX := .venv-databricks
INSTALLEDDBX := $(VENVDBX)/.installed

# The JVM jars Spark loads (Delta Lake, spark-avro, the Kafka source), one folder per Spark line,
# and the programs the tests run (the real producers, the Kafka broker), one folder per program,
# fetched by Maven once: a build never downloads.
# Maven's repository is ~/.m2, as usual. Each folder is made anew when its pom changes.
JARS := jvm/jars/spark-4.0/.fetched
JARS35 := jvm/jars/spark-3.5/.fetched
# The Kafka broker's jars, which the unit tests use too (they format a broker's storage).
KAFKA_JARS := jvm/jars/kafka/.fetched
PROGRAM_JARS := jvm/jars/debezium-mariadb/.fetched jvm/jars/maxwell/.fetched $(KAFKA_JARS)
# What a build of the project needs: the venv and the Spark line's jars.
PROJECT := $(INSTALLED) $(JARS)

.PHONY: setup browser databases run demo test test-fast test-installs test-unit test-dbt-unit test-integration test-spark35 test-databricks \
	test-conformance lint format docs \
	bench thrift-up thrift-down kafka-up kafka-down sql clean

setup: $(PROJECT) $(PROGRAM_JARS)

$(JARS) $(JARS35): jvm/jars/%/.fetched: jvm/pom.xml
$(PROGRAM_JARS): jvm/jars/%/.fetched: jvm/programs/pom.xml
$(JARS) $(JARS35) $(PROGRAM_JARS):
	@command -v mvn >/dev/null || { echo "Maven is required (it fetches the JVM jars)." >&2; exit 1; }
	rm -rf $(@D)
	mvn --quiet --batch-mode -Dstyle.color=never --file $< --activate-profiles $* dependency:copy-dependencies
	touch $@

# The distributions this repository holds: the project's Python package (cdc-lakehouse, what its
# Python models import), the adapter plugin and the tools. Installed together, so that pip takes
# each one's folder for the others' requirements (none is on PyPI). Non-editable: the adapter
# plugin lives in dbt's regular `dbt.adapters` package, which an editable install cannot extend.
# Any change to a distribution's sources re-installs.
DISTRIBUTIONS := ./dbt-sparkpy ./tools '.[dev]'
# Not the *.egg-info folders a build writes beside them: each install (.venv-spark35's too) would
# make the others out of date.
SOURCES := $(shell find pyproject.toml src dbt-sparkpy/pyproject.toml dbt-sparkpy/src tools/pyproject.toml tools/src -type f \
	-not -path '*/__pycache__/*' -not -path '*.egg-info/*')

# $(call install,VENV,EXTRA_REQUIREMENTS), with uv: a fresh venv in about a minute where pip takes
# five (pip builds pyspark's sdist and installs one package at a time). The project's folders are
# rebuilt each time (uv would reuse its cached wheels of them). setuptools builds in each folder's
# build/, whose modules outlive a move and would be packed again, so it starts empty. cdc-lakehouse
# is uninstalled first: one installed before the adapter moved to dbt-sparkpy/ lists the adapter's
# files as its own, and uninstalling it after dbt-sparkpy is in would delete them.
UV := 'uv~=0.13.9'
UV_PACKAGES := $(addprefix --reinstall-package ,cdc-lakehouse dbt-sparkpy cdc-lakehouse-tools)
define install
	rm -rf build dbt-sparkpy/build tools/build
	$(1)/bin/pip install --quiet $(UV)
	$(1)/bin/uv pip uninstall --quiet --python $(1)/bin/python cdc-lakehouse
	$(1)/bin/uv pip install --quiet --python $(1)/bin/python $(UV_PACKAGES) $(DISTRIBUTIONS) $(2)
endef

$(INSTALLED): $(SOURCES)
	@command -v java >/dev/null || { echo "Java 17 is required (Spark runs on it)." >&2; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(call install,$(VENV))
	touch $@

$(INSTALLED35): $(SOURCES)
	test -x $(VENV35)/bin/python || $(PYTHON) -m venv $(VENV35)
	$(call install,$(VENV35),$(SPARK35_PINS))
	touch $@

$(INSTALLEDDBX): Makefile
	test -x $(VENVDBX)/bin/python || $(PYTHON) -m venv $(VENVDBX)
	$(VENVDBX)/bin/pip install --quiet $(UV)
	$(VENVDBX)/bin/uv pip install --quiet --python $(VENVDBX)/bin/python 'dbt-databricks~=1.11.8' 'pytest~=9.0'
	touch $@

# The routine build of a landing (LANDING_ROOT, or CDC_LANDING_ROOT): selectors.yml's default
# leaves out dbt's unit tests and the seeds' tests, which check the project, not the data, and
# run in `make test`.
run: setup
	$(BIN)/dbt build $(if $(LANDING_ROOT),--vars '{landing_root: "$(LANDING_ROOT)"}')

# The bundled samples, named: the project has no default landing root. A build over a few
# hundred lines, run as the tests run theirs (below).
demo: setup
	$(BIN)/dbt build --vars '{landing_root: samples/landing}'
	$(BIN)/dbt docs generate

# Everything CI runs: the fast checks, the builds, the second run on Spark 3.5
# (docs/spark-versions.md), the project as dbt-databricks compiles it (docs/databricks.md), and
# the real producers (docs/conformance.md).
# What the later suites need installs while the earlier ones run (the installs wait on the
# network and the disk, the tests on the cores): the producers' jars and Debian's packages beside
# the fast checks, the Spark 3.5 and dbt-databricks venvs and Spark 3.5's jars beside the
# builds. Their tests run after, one Spark build at a time. The builds keep both cores busy:
# running the other tests beside them, even at the lowest CPU priority, made the whole no
# shorter (docs/testing.md).
test: $(PROJECT) $(KAFKA_JARS)
	$(MAKE) --jobs=2 --output-sync=target test-fast test-installs
	$(MAKE) --jobs=3 --output-sync=target test-integration $(INSTALLED35) $(INSTALLEDDBX) $(JARS35)
	$(MAKE) test-spark35 test-databricks test-conformance

# One after another: two apt-get at once would wait on each other's lock.
test-installs:
	$(MAKE) $(PROGRAM_JARS) browser databases

# The checks without a build of the data: a few minutes. Two at a time, as each keeps about one
# core of two busy (lint is Python; the others wait on Spark and dbt in turn); three at a time
# fight for the cores (docs/performance.md#the-test-suite). Each one's output is printed as it ends.
test-fast: $(PROJECT)
	$(MAKE) --jobs=2 --output-sync=target lint test-unit test-dbt-unit

# Tests' JVMs, and the demo's, live a minute or a few over small data, too short for C2's
# compilations to pay back: without them the JVMs take about a third less CPU time
# (docs/performance.md#the-test-suite). C1 alone fills the default code cache with the staging
# models' generated code: a larger one. `make run` and `make bench` keep C2: their builds are
# long, and so does test-spark35: Spark 3.5's JVMs are quicker with it.
C1_ONLY := -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m
# For the same reason they run Spark's expressions interpreted, without generated code (the
# profile's CDC_SPARK_CODEGEN), Spark 3.5's too. One build runs the generated code production
# runs: the equivalence test's Thrift server runs Spark 4 as production does (every model over
# every format); so does `make bench`.
test-fast test-unit test-dbt-unit test-integration test-spark35 test-conformance demo: export CDC_SPARK_CODEGEN := false
# These JVMs (Spark's, the Thrift server's, the broker's) also collect garbage on one thread, as
# suits small heaps on two cores, and skip verifying the bytecode of their jars, which Maven
# fetched against their checksums or the pyspark wheel ships: less CPU for the same build with C1
# (with C2, as test-spark35 runs, no clear gain was measured: docs/performance.md#the-test-suite).
SMALL_DATA_JVM := -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote
lint test-unit test-dbt-unit test-integration test-conformance demo: export JDK_JAVA_OPTIONS := $(JDK_JAVA_OPTIONS) $(SMALL_DATA_JVM) $(C1_ONLY)

# sqlfluff's dbt templater compiles against a warehouse of its own: one a build left would have
# it lint the incremental branches, which a fresh clone never sees.
lint: $(PROJECT)
	$(BIN)/ruff format --check
	$(BIN)/ruff check
	$(BIN)/yamllint --strict .
	CDC_SPARK_DIR=target/lint-spark $(BIN)/sqlfluff lint models tests/dbt

format: $(PROJECT)
	$(BIN)/ruff check --fix
	$(BIN)/ruff format

# pytest without dbt builds: pure Python, the in-process SparkSession, `dbt parse` and compile.
test-unit: $(PROJECT) $(KAFKA_JARS)
	$(BIN)/pytest tests/unit
	$(BIN)/pytest dbt-sparkpy/tests/unit

# dbt's unit tests read the columns of a model's inputs from the warehouse, so every model is
# built first, on an empty landing; then the unit tests run. Not in one `dbt build`: it runs a
# model's unit tests one after another before the model, so the replica models' chain of them
# left a core idle (docs/performance.md#the-test-suite). Both commands run in one process
# (cdc_tools.dbt_steps), so the second starts no JVM. Of the data tests, only the seeds' have
# data here: they run here rather than in each integration build. A throwaway Spark dir leaves
# .spark/ alone. The landing has the samples' folders, empty: Spark prints a stack trace for
# each folder that is missing.
# ANSI mode on, as Spark 4 and Databricks SQL warehouses run: dbt runs the unit tests in a
# plain `dbt build`, and a cast that fails there must fail here.
FAST_DIR := $(CURDIR)/target/test-fast
test-dbt-unit: export CDC_SPARK_ANSI := true
test-dbt-unit: $(PROJECT)
	rm -rf $(FAST_DIR) && mkdir -p $(addprefix $(FAST_DIR)/landing/,$(notdir $(wildcard samples/landing/*)))
	CDC_SPARK_DIR=$(FAST_DIR)/spark $(BIN)/python -m cdc_tools.dbt_steps \
		'build --exclude-resource-type unit_test' 'test --resource-type unit_test' -- \
		--target local --selector project_checks --vars '{landing_root: "$(FAST_DIR)/landing"}' \
		--target-path $(FAST_DIR)/target --log-path $(FAST_DIR)/logs

# pytest with dbt builds (end to end, equivalence of formats, hostile input, incremental runs,
# the docs site in Chromium) and the adapter's Spark Connect and dbt build tests. Two modules at
# a time (pytest-xdist, a module per process): a small build leaves a core idle much of the time
# (dbt's Python, Spark's planning, JVM starts); docs/testing.md has the times. The longest
# tests' times end the output.
test-integration: setup browser
	$(BIN)/pytest --numprocesses 2 --dist loadfile --durations 15 tests/integration dbt-sparkpy/tests/integration

# Spark 3.5's forms of the SQL: the local equivalence build (every model over every format's
# stream), then dbt's unit tests (every format's staging, its rejections, the shared rules) over
# its models, and a replica rewritten where Delta 3.3 cannot widen its column. Its JVMs keep
# C2; its builds collect garbage serially, as the profile sets it for every build.
test-spark35: export CDC_SPARK_JARS := jvm/jars/spark-3.5/*
test-spark35: $(INSTALLED35) $(JARS35)
	$(VENV35)/bin/pytest tests/integration/test_format_equivalence.py tests/integration/test_replica_schema_changes.py

# The project compiled by dbt-databricks for the databricks_uc target, without a workspace. The
# repo's conftest needs pyspark, which this venv has no use for.
test-databricks: $(INSTALLEDDBX)
	$(VENVDBX)/bin/pytest --noconftest tests/databricks

# Real producers on real databases (tests/conformance, docs/conformance.md): each test starts
# a throwaway server and the producer, runs a workload, builds what the producer sent and
# compares every replica with its source table. The two modules side by side (a module per
# process): PostgreSQL's one producer builds alone, which leaves a core idle much of the time.
test-conformance: setup databases
	$(BIN)/pytest --numprocesses 2 --dist loadfile tests/conformance

# Debian's PostgreSQL and MariaDB servers for the conformance tests, installed when missing (as
# `browser`).
databases:
	@ls /usr/lib/postgresql/*/bin/initdb /usr/sbin/mariadbd >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			postgresql mariadb-server mariadb-client; }

# The docs site test drives Debian's Chromium through its ChromeDriver; installed when missing
# (CI runs as root on a fresh Debian machine; elsewhere through sudo).
browser:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			chromium chromium-driver fonts-liberation; }

# The catalog (column types, row counts) covers what the warehouse holds: run `make demo` first
# for all of it.
DOCS_PORT ?= 8080
docs: setup
	$(BIN)/dbt docs generate
	@echo "The docs site: http://127.0.0.1:$(DOCS_PORT) (its home page links to the models' lineage, by layer)"
	$(BIN)/dbt docs serve --no-browser --host 127.0.0.1 --port $(DOCS_PORT)

# The benchmark (docs/performance.md): N landed messages across formats; writes target/bench.json.
N ?= 1000000
bench: setup
	$(BIN)/python -m cdc_tools.bench --messages $(N)

# A local Spark Thrift Server with Spark Connect, for `dbt build --target thrift`.
thrift-up: setup
	scripts/thrift_server.sh up

thrift-down:
	scripts/thrift_server.sh down

# A single-node Kafka (KRaft) on 127.0.0.1:$(KAFKA_PORT), data in .kafka/, for builds with
# `--vars '{landing_source: kafka}'` (docs/kafka.md).
KAFKA_PORT ?= 9092
kafka-up: setup
	$(BIN)/python -m cdc_tools.kafka up --data .kafka --port $(KAFKA_PORT)

kafka-down:
	$(BIN)/python -m cdc_tools.kafka down --data .kafka

# A SQL console on the local warehouse (.spark/): one Spark start, then queries at once.
sql: setup
	scripts/spark_sql.sh

clean:
	rm -rf .spark .thrift .kafka target logs jvm/jars $(INSTALLED) $(INSTALLED35) $(INSTALLEDDBX)
