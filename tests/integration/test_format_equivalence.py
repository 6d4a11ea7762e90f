"""Cross-format equivalence: one logical change stream, landed in every JSON format and in the
Avro formats, gives the same row changes (and, where the format carries DDL, schema changes)
in the facts. An Avro format lands in both encodings at once: its even-numbered files as
JSON-encoded lines, its odd-numbered ones as binary container files holding the same records
(the writer rolls both encodings at the same records), so OMS shard sets whose pieces sit in
files of either encoding are reassembled too.

The generator (cdc_tools.generator) writes a few hundred statements with every edge case
(NULLs, empty strings, quotes, unicode, decimals, fractional datetimes, multi-row statements,
updates of one column and from and to NULL, composite and string keys, DDL of every kind) into
a landing root, with the expected results derived from the logical stream. One `dbt build`
(dbt_harness.Build) reads all formats: on Spark 4 on a Spark Thrift Server with Spark Connect
(`scripts/thrift_server.sh`, as `make thrift-up` starts it), as production runs Spark; on
Spark 3.5 (`make test-spark35`) on the embedded local Spark. Each test then compares one
format's rows in the build's marts with the expected results. On Spark 4 the local target's
build of such a stream, with ANSI mode off, is the incremental runs' test's full refresh, which
checks its facts against the generator's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pyspark
import pytest

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.container import container_records
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.stream import final_tables, logical_stream
from cdc_tools.generator.writer import EXPECTED_FOLDER, REDELIVERED_CHANGES_FILE, generate
from cdc_tools.registry import project_formats
from support.compared_facts import compared_facts, final_table_difference, multiset_difference
from support.dbt_harness import ANSI_MODE, DATA_BUILD, REPO, Build, ThriftServer, file_name, profiles_dir
from support.dbt_worker import DbtWorker
from support.plain_merge import PlainMergeReplicas, spark_type

# Every format the project reads; those with binary container files land in both encodings.
REGISTRY = project_formats(REPO)
FORMAT_NAMES = tuple(REGISTRY)
AVRO_FORMATS = tuple(name for name, entry in REGISTRY.items() if entry.containers)
STATEMENTS = 300  # the curated prefix (every edge case) and ~270 random statements
SEED = 20240101
SPARK_4 = int(pyspark.__version__.split(".")[0]) >= 4
# pyspark 3.5 ships no Spark Connect server (scripts/thrift_server.sh): there the local target.
TARGET = "thrift" if SPARK_4 else "local"
# On Spark 3.5, dbt's unit tests and the seeds' data tests, with ANSI mode on, as `make
# test-dbt-unit` runs them on Spark 4, over the models of the local build (a unit test reads its
# inputs' columns from the warehouse).
UNIT_TESTS = ["test", "--selector", "project_checks"]
AVRO_FILE_BYTES = 64 * 1024  # several files per Avro format, so both encodings land
LANDED_EPOCH = 1_704_067_200  # the Avro files' landing times, a second apart in stream order


def _land_avro_in_both_encodings(root: Path, work: Path) -> None:
    """Each Avro format's folder: even parts JSON-encoded, odd parts binary, one stream."""
    for encoding in ("json", "binary"):
        generate(work / encoding, STATEMENTS, SEED, AVRO_FORMATS, AVRO_FILE_BYTES, avro_encoding=encoding)
    for name in AVRO_FORMATS:
        folder = root / name
        folder.mkdir(parents=True)
        json_parts = sorted((work / "json" / name).glob("part-*.jsonl"))
        # A part's records in Avro: part-0000N.avro, and a file per other schema of the part.
        binary_parts = [sorted((work / "binary" / name).glob(f"{p.stem}[.-]*avro")) for p in json_parts]
        assert all(binary_parts) and len(json_parts) > 2
        for part, (json_part, binary_part) in enumerate(zip(json_parts, binary_parts, strict=True)):
            for chosen in [json_part] if part % 2 == 0 else binary_part:
                chosen.rename(folder / chosen.name)
                # Landed in stream order, as one producer writes them: a restart's copies land
                # after their originals, whichever encoding was generated last.
                os.utime(folder / chosen.name, (LANDED_EPOCH + part, LANDED_EPOCH + part))


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("equivalence")
    root = work / "landing"
    generate(root, STATEMENTS, SEED, FORMAT_NAMES)  # the expected results of every format
    for name in AVRO_FORMATS:
        for path in (root / name).iterdir():
            path.unlink()
        (root / name).rmdir()
    _land_avro_in_both_encodings(root, work / "avro")
    return root


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("equivalence_build")


@pytest.fixture(scope="module")
def server(root: Path) -> ThriftServer:
    """Its warehouse is where the thrift build's tables are read from: that build's Spark dir."""
    return ThriftServer(root / "thrift" / "spark", ansi_mode=True, generated_code=True)


@pytest.fixture(scope="module")
def builds(root: Path, landing: Path, server: ThriftServer, shared_worker: DbtWorker) -> Iterator[dict[str, Build]]:
    """The build, by its target, and on Spark 3.5 dbt's unit tests over its models, started
    beside it. On Spark 4 the thrift target (a Spark Thrift Server with Spark Connect for the
    Python models) as production runs Spark 4 (and Databricks SQL): ANSI mode on, and the
    generated code that the other test builds go without (dbt's unit tests run with ANSI mode
    on in `make test-dbt-unit`, on the same Spark). On Spark 3.5 the local target, with ANSI
    mode off (dbt-spark's default)."""
    profiles = profiles_dir(root)
    thrift = TARGET == "thrift"
    # No var cdc_primary_keys: where messages name no key (Debezium), it comes from the DDL.
    started = {
        TARGET: Build(
            f"format equivalence ({TARGET})",
            root / TARGET,
            DATA_BUILD,
            landing,
            target=TARGET,
            schema="equivalence",
            worker=None if thrift else shared_worker,
            env=server.env if thrift else {},
            after=server.down if thrift else None,
        )
    }
    if not SPARK_4:
        started["unit_tests"] = Build(
            "dbt unit tests",
            root / "unit_tests",
            UNIT_TESTS,
            landing,
            schema="equivalence",
            env=ANSI_MODE,
            worker=shared_worker,
        )
    try:
        if thrift:
            server.up()
        for build in started.values():
            build.start(profiles)
        yield started
    finally:
        for build in started.values():
            build.stop()
        server.down()


@pytest.fixture(scope="module")
def build(builds: dict[str, Build]) -> Build:
    return builds[TARGET]


@pytest.fixture(params=FORMAT_NAMES)
def format_name(request: pytest.FixtureRequest) -> str:
    return request.param


def _landed_records(path: Path, format_name: str) -> list[str]:
    """A landed file's lines, or a container file's records in Avro's JSON encoding."""
    if path.suffix == ".avro":
        schema = record_schema(format_name)
        return [payload or "" for _, payload in container_records(path.read_bytes(), schema)]
    # Only "\n" ends a landed line: OMS shard bytes hold characters str.splitlines() splits on.
    return path.read_text(encoding="utf-8").removesuffix("\n").split("\n")


OMS_CONTROL_OPERATIONS = ("BEGIN", "COMMIT", "HEARTBEAT")  # 004's Operation symbols that carry no rows


def _skipped(format_name: str, records: list[str]) -> int:
    """Records the format skips: OMS control records and shards merged into their shard 0, TiCDC's
    WATERMARK events (bare canal messages)."""
    if format_name == "canal_json":
        parsed = [json.loads(record) for record in records]
        return sum(1 for r in parsed if isinstance(r, dict) and r["type"] == "TIDB_WATERMARK")
    if format_name != "oms_avro":
        return 0
    parsed = [json.loads(record) for record in records]
    return sum(1 for r in parsed if next(iter(r["operation"].values())) in OMS_CONTROL_OPERATIONS or r["index"] >= 1)


def test_build_over_the_generated_stream_succeeds(build: Build) -> None:
    build.wait()
    statuses = build.run_results()
    assert {uid: s for uid, s in statuses.items() if s not in {"success", "pass"}} == {}


@pytest.mark.skipif(SPARK_4, reason="on Spark 4, `make test-dbt-unit` runs them")
def test_every_dbt_unit_test_passes_on_spark_3_5(builds: dict[str, Build]) -> None:
    unit_tests = builds["unit_tests"]
    unit_tests.wait()
    statuses = unit_tests.run_results()
    manifest = json.loads((unit_tests.target_dir / "manifest.json").read_text())
    assert {uid for uid in statuses if uid.startswith("unit_test.")} == set(manifest["unit_tests"])
    assert {uid: s for uid, s in statuses.items() if s not in {"success", "pass"}} == {}


@pytest.mark.skipif(not SPARK_4, reason="pyspark 3.5 ships no Spark Connect server")
def test_the_thrift_server_runs_spark_4_as_production_does(build: Build, server: ThriftServer) -> None:
    build.wait()
    assert server.runs_ansi_mode
    assert server.runs_generated_code


def test_row_changes_equal_the_expected_row_changes(build: Build, landing: Path, format_name: str) -> None:
    expected, actual = compared_facts(landing, build.marts(), format_name, "row_changes")
    assert len(expected) > 450
    assert multiset_difference(expected, actual) == []


def test_schema_changes_equal_the_expected_schema_changes(build: Build, landing: Path, format_name: str) -> None:
    expected, actual = compared_facts(landing, build.marts(), format_name, "schema_changes")
    if REGISTRY[format_name].ddl:
        # Every kind of DDL the format sends (Maxwell sends no TRUNCATE and no index DDL).
        assert {row[2] for row in expected} == FORMATS[format_name].ddl_kinds
    else:
        assert expected == []
    assert multiset_difference(expected, actual) == []


def test_nothing_is_rejected_and_every_landed_line_reconciles(build: Build, landing: Path, format_name: str) -> None:
    marts = build.marts()
    assert [r for r in marts["fct_rejected_messages"] if r["source_format"] == format_name] == []
    reconciliation = {
        file_name(r["file_path"]): r for r in marts["fct_message_reconciliation"] if r["source_format"] == format_name
    }
    files = sorted((landing / format_name).glob("part-*"))
    assert sorted(reconciliation) == [path.name for path in files]
    if format_name in AVRO_FORMATS:
        assert {path.suffix for path in files} == {".jsonl", ".avro"}
    for path in files:
        counts = reconciliation[path.name]
        records = _landed_records(path, format_name)
        assert counts["landed_lines"] == len(records), path.name
        assert counts["rejected_messages"] == 0, path.name
        assert counts["skipped_messages"] == _skipped(format_name, records), path.name
        assert counts["messages"] == (
            counts["row_change_messages"] + counts["schema_change_messages"] + counts["skipped_messages"]
        )
    if format_name == "canal_json":  # TiCDC's messages are among them: their watermarks are skipped
        assert sum(counts["skipped_messages"] for counts in reconciliation.values()) > 0
    # The producers' restarts sent changes again: each copy is counted, none reaches the facts.
    redelivered = json.loads((landing / EXPECTED_FOLDER / REDELIVERED_CHANGES_FILE).read_text())[format_name]
    assert redelivered > 0
    assert sum(counts["redelivered_changes"] for counts in reconciliation.values()) == redelivered


REPLICA_SYSTEM_COLUMNS = {
    "_overflow",
    "_primary_key",
    "_last_change_id",
    "_last_operation",
    "_last_event_at",
    "_loaded_at",
}


def test_replicas_are_the_final_tables_typed(build: Build) -> None:
    """Every format's changes of a table, all in one replica, give the table as the stream leaves
    it: columns renamed (rows written before the rename read under the old name), widened
    (int to bigint, decimal(12,2) to decimal(14,2)) and dropped (kept, nullable), typed."""
    tables = final_tables(SEED, STATEMENTS)
    read = build.tables(("dim_replica_tables", "dim_replica_columns"))
    names = {(r["database_name"], r["table_name"]): r["replica_name"] for r in read["dim_replica_tables"]["rows"]}
    dropped = {
        (r["database_name"], r["table_name"], r["column_name"])
        for r in read["dim_replica_columns"]["rows"]
        if r["is_dropped"]
    }
    replicas = build.tables(tuple(names[table] for table in tables), suffix="_replica")
    for (database, name), (table, rows) in tables.items():
        replica = replicas[names[database, name]]
        types = {column.name: spark_type(column.type) for column in table.columns}
        assert {k: v for k, v in replica["types"].items() if k in types} == types, name
        kept = set(replica["types"]) - set(types) - REPLICA_SYSTEM_COLUMNS
        assert kept == {column for (d, t, column) in dropped if (d, t) == (database, name)}, name
        assert len(replica["rows"]) == len(rows) > 0
        assert final_table_difference(table, rows, replica["rows"]) == [], name
        assert [row["_overflow"] for row in replica["rows"] if row["_overflow"]] == []


def test_replicas_equal_tables_kept_by_a_plain_merge(build: Build, tmp_path: Path) -> None:
    """The stream applied by hand, a MERGE per table and load and ALTER TABLE for its DDL
    (support/plain_merge.py), leaves the rows of the project's replicas: each table's current
    columns, compared in Spark, row for row."""
    replicas = PlainMergeReplicas(tmp_path)
    statements = list(replicas.statements(logical_stream(SEED, STATEMENTS)))
    for statement in statements:
        build.query(statement)
    # More MERGEs than tables: loads merged onto the rows of earlier ones.
    assert sum("merge into" in statement for statement in statements) > len(replicas.tables)
    listing = build.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"]
    names = {(r["database_name"], r["table_name"]): r["replica_name"] for r in listing}
    assert set(replicas.tables) == set(final_tables(SEED, STATEMENTS))
    for table_id, (path, table) in replicas.tables.items():
        columns = ", ".join(f"`{name}`" for name in table.column_names)
        project = f"select {columns} from {build.schema}_replica.{names[table_id]}"
        by_hand = f"select {columns} from delta.`{path}`"
        [counts] = build.query(f"""
            select
                (select count(*) from ({by_hand})) as rows,
                (select count(*) from ({by_hand} except all {project})) as missing,
                (select count(*) from ({project} except all {by_hand})) as unexpected
        """)
        assert counts["rows"] > 0 and (counts["missing"], counts["unexpected"]) == (0, 0), (table_id, counts)
