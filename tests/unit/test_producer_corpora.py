"""The golden corpora of real producers (tests/conformance/corpora: what Debezium sent for the
conformance workload and the source tables after it, made by `python -m
cdc_tools.producers.capture`) through their format's staging, without a database: nothing is
rejected, and the last image of each source row holds its values exactly."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

from pyspark.sql import SparkSession

from support.compiled_models import LANDING, run_compiled, seed, staged
from support.source_values import differences

CORPORA = Path(__file__).resolve().parents[1] / "conformance" / "corpora"
KEYS = {"customers": "id", "orders": "order_id", "workload_end": "id"}


def test_debezium_postgres_corpus_stages_every_value_exactly(spark: SparkSession, compiled: dict[str, str]) -> None:
    lines = (CORPORA / "debezium_postgres.jsonl").read_text().splitlines()
    source = json.loads((CORPORA / "debezium_postgres.tables.json").read_text())
    landed = spark.createDataFrame(
        [
            ("file:/landing/debezium_json/postgres.jsonl", n, line, datetime(2024, 1, 1))
            for n, line in enumerate(lines, 1)
        ],
        LANDING,
    )
    relations = {
        "cdc_landing.debezium_json": landed,
        "cdc.debezium_connect_types": seed(spark, "debezium_connect_types"),
    }
    messages = staged(run_compiled(spark, compiled["stg_debezium_json__messages"], relations))
    # Each row the workload changed (its command tags), the snapshot's row and a key change's
    # second event are row changes; the TRUNCATE a schema change; the tombstones skipped.
    changed = sum(int(tag.split()[-1]) for tag in source["tags"] if tag.split()[0] in ("INSERT", "UPDATE", "DELETE"))
    assert Counter(m["disposition"] for m in messages) == {
        "row_change": 1 + changed + 1,
        "schema_change": 1,
        "skipped": lines.count(""),
    }
    rows: dict[str, dict[str, dict]] = {table: {} for table in KEYS}
    for message in messages:  # in the order sent: one landed file
        table = message["table_name"]
        if message["disposition"] == "schema_change":  # the TRUNCATE
            rows[table].clear()
        elif message["disposition"] == "row_change" and message["after_image"] is None:
            del rows[table][message["before_image"][KEYS[table]]]
        elif message["disposition"] == "row_change":
            rows[table][message["after_image"][KEYS[table]]] = message["after_image"]
    for table, key in KEYS.items():
        assert sorted(rows[table]) == sorted(row[key] for row in source["tables"][table]["rows"]), table
        assert differences(source["tables"][table], key, rows[table]) == [], table
