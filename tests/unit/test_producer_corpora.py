"""The golden corpora of real producers (tests/conformance/corpora: what Debezium sent for the
conformance workload, before and after its crash, and the source tables after it, made by
`python -m cdc_tools.producers.capture`) through their format's staging, without a database:
nothing is rejected, and the last image of each source row holds its values exactly."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

from pyspark.sql import SparkSession

from support.compiled_models import LANDING, run_compiled, seed, staged
from support.source_values import differences

CORPORA = Path(__file__).resolve().parents[1] / "conformance" / "corpora"


def test_debezium_postgres_corpus_stages_every_value_exactly(spark: SparkSession, compiled: dict[str, str]) -> None:
    files = sorted((CORPORA / "debezium_postgres").glob("*.jsonl"))  # before the crash, after
    lines = [(path.name, line) for path in files for line in path.read_text().splitlines()]
    source = json.loads((CORPORA / "debezium_postgres.tables.json").read_text())
    landed = spark.createDataFrame(
        [
            (f"file:/landing/debezium_json/{name}", n, line, datetime(2024, 1, 1))
            for n, (name, line) in enumerate(lines, 1)
        ],
        LANDING,
    )
    relations = {
        "cdc_landing.debezium_json": landed,
        "cdc.debezium_connect_types": seed(spark, "debezium_connect_types"),
    }
    messages = staged(run_compiled(spark, compiled["stg_debezium_json__messages"], relations))
    # Every value a change, the TRUNCATE among them a schema change; every tombstone skipped.
    tombstones = sum(1 for _, line in lines if not line)
    assert Counter(m["disposition"] for m in messages) == {
        "row_change": len(lines) - tombstones - 1,
        "schema_change": 1,
        "skipped": tombstones,
    }
    keys: dict[str, str] = {}
    for table, described in source["tables"].items():
        [keys[table]] = described["key"]  # one column each
    rows: dict[str, dict[str, dict]] = {table: {} for table in keys}
    for message in messages:  # in the order sent (the restart's copies repeat what they copy)
        table = message["table_name"]
        if message["disposition"] == "schema_change":  # the TRUNCATE
            rows[table].clear()
        elif message["disposition"] == "row_change" and message["after_image"] is None:
            del rows[table][message["before_image"][keys[table]]]
        elif message["disposition"] == "row_change":  # a column left out (TOAST) keeps its value
            key = message["after_image"][keys[table]]
            rows[table][key] = {**rows[table].get(key, {}), **message["after_image"]}
    for table, key in keys.items():
        assert sorted(rows[table]) == sorted(row[key] for row in source["tables"][table]["rows"]), table
        assert differences(source["tables"][table], key, rows[table]) == [], table
