"""The golden corpora of real producers (tests/conformance/corpora: what each producer sent for
its database's conformance workload, before and after its crash, and the source tables after
it, made by `python -m cdc_tools.producers.capture`) through their format's staging, without a
database: nothing is rejected, and the last image of each source row holds its values exactly
but where the producer cannot say them (support.conformance.NOT_EXACT). Debezium's events go
through Avro too, as its AvroConverter writes them into a sink's container files (a file per
schema, no tombstones: a sink skips null values), and stage as debezium_avro to the same rows."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from cdc_lakehouse.avro.container import container_records
from cdc_lakehouse.geometry import GEOMETRY_TYPES, geometry_text
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.writer import ContainerWriter
from support.compiled_models import CONTAINER_RECORDS, landed_file_lines, run_compiled, seed, staged
from support.conformance import NOT_EXACT, RENAMED
from support.source_values import differences

CORPORA = Path(__file__).resolve().parents[1] / "conformance" / "corpora"
# Each corpus: its producer, the format it writes, its database and the seeds its staging reads.
CORPUS_FORMATS = {
    "debezium_postgres": ("debezium_json", "postgres", ["debezium_connect_types"]),
    "debezium_mariadb": ("debezium_json", "mariadb", ["debezium_connect_types"]),
    "maxwell_mariadb": ("maxwell_json", "mariadb", []),
}


def _decoded(image: dict | None, types: dict | None) -> dict | None:
    """An image with its geometries as text, as the project's lookup after staging gives them."""
    if image is None:
        return None
    is_geometry = {name for name, type_ in (types or {}).items() if type_.lower() in GEOMETRY_TYPES}
    return {
        name: geometry_text(value) or value if name in is_geometry and value else value for name, value in image.items()
    }


def _last_images(messages: list[dict], keys: dict[str, str]) -> dict[str, dict[str, dict]]:
    """Each table's rows by key text, from its changes in the order sent (the restart's copies
    repeat what they copy): a TRUNCATE empties it, a key change moves the row, a column left out
    (TOAST) keeps its value."""
    rows: dict[str, dict[str, dict]] = {table: {} for table in keys}
    for message in messages:
        key = keys.get(message["table_name"])
        table = rows.get(message["table_name"])
        if key is None or message["database_name"] not in ("shop", "shop.public"):
            continue
        if message["disposition"] == "schema_change" and message["operation"] == "TRUNCATE":
            table.clear()
        elif message["disposition"] == "row_change":
            before, after = (
                _decoded(message[image], message["column_types"]) for image in ("before_image", "after_image")
            )
            # A partial before image (Maxwell's `old`) holds the key only when it changed.
            if before is not None and key in before and (after is None or before[key] != after[key]):
                table.pop(before[key], None)
            if after is not None:
                table[after[key]] = {**table.get(after[key], {}), **after}
    return rows


def _as_avro_containers(spark: SparkSession, lines: list[tuple[str, str]], folder: Path) -> DataFrame:
    """Debezium's values as a sink with the Avro converter lands them, a new file where the
    schema changes, read back as base_debezium_avro__container_records gives them."""
    writer = ContainerWriter(folder, 1 << 40, FORMATS["debezium_avro"].avro_record)
    schema = None
    for _, line in lines:
        if line and json.loads(line)["schema"] != schema:
            writer.roll()
            schema = json.loads(line)["schema"]
        if line:
            writer.write(line)
    writer.close()
    rows = [
        (f"file:{path}", number, payload, datetime(2024, 1, 1), datetime(2024, 1, 1))
        for path in writer.files
        for number, payload in container_records(path.read_bytes(), None)
    ]
    return spark.createDataFrame(rows, CONTAINER_RECORDS)


@pytest.mark.parametrize(
    ("producer", "format_"),
    [(producer, format_) for producer, (format_, _, _) in CORPUS_FORMATS.items()]
    + [
        (producer, "debezium_avro")
        for producer, (format_, _, _) in CORPUS_FORMATS.items()
        if format_ == "debezium_json"
    ],
)
def test_corpus_stages_every_value_exactly(
    spark: SparkSession, compiled: dict[str, str], tmp_path: Path, producer: str, format_: str
) -> None:
    _, database, seeds = CORPUS_FORMATS[producer]
    files = sorted((CORPORA / producer).glob("*.jsonl"))  # before the crash, after
    lines = [(path.name, line) for path in files for line in path.read_text().splitlines()]
    source = json.loads((CORPORA / f"{database}.tables.json").read_text())["tables"]
    landed = landed_file_lines(
        spark,
        [(f"file:/landing/{format_}/{name}", n, line, datetime(2024, 1, 1)) for n, (name, line) in enumerate(lines, 1)],
    )
    relations = {f"cdc_landing.{format_}": landed, **{f"cdc.{name}": seed(spark, name) for name in seeds}}
    if format_ == "debezium_avro":
        relations[f"cdc_landing.{format_}"] = landed.where("false")
        relations["cdc.base_debezium_avro__container_records"] = _as_avro_containers(spark, lines, tmp_path)
        lines = [(name, line) for name, line in lines if line]
    messages = staged(run_compiled(spark, compiled[f"stg_{format_}__messages"], relations))
    assert [m for m in messages if m["disposition"] == "rejected"] == []
    assert len(messages) == len(lines)  # every line one message: none batches
    tables = {name: table for name, table in source.items() if name != RENAMED}  # rows stay under the old name
    keys = {}
    for name, table in tables.items():
        [keys[name]] = table["key"]  # one column each
    rows = _last_images(messages, keys)
    for name, key in keys.items():
        assert sorted(rows[name]) == sorted(row[key] for row in tables[name]["rows"]), name
        found = {(name, column) for _, column, _, _ in differences(tables[name], key, rows[name])}
        assert found == {(table, column) for table, column in NOT_EXACT.get(producer, {}) if table == name}, name
