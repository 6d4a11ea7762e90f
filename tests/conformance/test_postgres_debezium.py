"""Debezium's PostgreSQL connector on a real PostgreSQL (a throwaway cluster): after a workload
of inserts, multi-row updates and deletes in a transaction, a key change, a row inserted,
deleted and inserted again, a TOASTed value an update leaves unchanged (sent as Debezium's
placeholder), TRUNCATE, schema changes and edge values of common types, with the
producer crashing midway and sending its last batch again, every typed replica equals its
source table read with SELECT, one fact stands for each change, and nothing real is rejected."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cdc_tools.producers.capture import DATABASE, capture
from support.conformance import STEPS, build_steps
from support.source_values import differences

WORKLOAD = Path(__file__).parent / "postgres"


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The files the connector sent (before its crash, after), the source tables at the crash
    and after the workload, and the workload's command tags."""
    root = tmp_path_factory.mktemp("postgres_debezium")
    with capture(WORKLOAD, root, root / "work") as captured:
        yield {
            "files": sorted((root / "debezium_postgres").glob("*.jsonl")),
            "tables": {"midpoint": captured.tables_at_pause, "end": captured.tables()},
            "tags": captured.tags,
        }


@pytest.fixture(scope="module")
def built(captured: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    # The values name no key: the tables' own.
    keys = {f"{DATABASE}.public.{table}": source["key"] for table, source in captured["tables"]["end"].items()}
    root = tmp_path_factory.mktemp("postgres_debezium_builds")
    return build_steps(root, {"debezium_postgres": ("debezium_json", captured["files"])}, keys)["debezium_postgres"]


@pytest.mark.parametrize("step", STEPS)
def test_nothing_real_is_rejected(built: dict[str, dict[str, Any]], step: str) -> None:
    assert built[step]["marts"]["fct_rejected_messages"] == []


def test_every_real_change_is_one_fact(captured: dict[str, Any], built: dict[str, dict[str, Any]]) -> None:
    """As many row changes as the workload's statements changed rows (their command tags), plus
    the snapshot's row and the key change's second event (a delete of the old key, an insert of
    the new), however many the crash sent again; the TRUNCATE is a schema change."""
    changed = sum(int(tag.split()[-1]) for tag in captured["tags"] if tag.split()[0] in ("INSERT", "UPDATE", "DELETE"))
    marts = built["end"]["marts"]
    assert len(marts["fct_row_changes"]) == 1 + changed + 1
    assert [(row["table_name"], row["ddl_kind"]) for row in marts["fct_schema_changes"]] == [("orders", "TRUNCATE")]


@pytest.mark.parametrize("step", STEPS)
def test_every_replica_equals_its_source_table(
    captured: dict[str, Any], built: dict[str, dict[str, Any]], step: str
) -> None:
    replicas = built[step]["replicas"]
    assert set(replicas) <= set(captured["tables"][step])
    for table, source in captured["tables"][step].items():
        [key] = source["key"]
        # A table no change has reached yet (workload_end at the midpoint) has no replica.
        copies = {str(row[key]): row for row in replicas.get(table, {"rows": []})["rows"]}
        assert sorted(copies) == sorted(row[key] for row in source["rows"]), table
        assert differences(source, key, copies) == [], table


# The Spark type of a replica column, by its Postgres type (format_type's name).
SPARK_TYPES = {
    r"integer|smallint": "int",
    r"bigint|interval": "bigint",
    r"numeric\((\d+),(\d+)\)": r"decimal(\1,\2)",
    r"double precision|real": "double",
    r"boolean": "boolean",
    r"date": "date",
    r"timestamp.*": "timestamp",
    # numeric without a scale: each value has its own. An interval: Debezium's microseconds.
    r"text\[\]|text|character.*|jsonb|uuid|numeric|time\(\d\) without time zone|inet": "string",
    r"bytea": "binary",
}


def test_every_replica_column_has_its_source_types_spark_type(
    captured: dict[str, Any], built: dict[str, dict[str, Any]]
) -> None:
    replicas = built["end"]["replicas"]
    for table, source in captured["tables"]["end"].items():
        for column, source_type in source["types"].items():
            [expected] = [
                re.sub(pattern, spark, source_type)
                for pattern, spark in SPARK_TYPES.items()
                if re.fullmatch(pattern, source_type)
            ]
            assert replicas[table]["types"][column] == expected, (table, column, source_type)


def test_a_dropped_column_is_marked_dropped(captured: dict[str, Any], built: dict[str, dict[str, Any]]) -> None:
    """No DDL says so: the schema of the table's newest change leaves the column out. The
    replica keeps it, marked (docs/replicas.md), with no value in any row, as after a DDL's
    drop: rows not changed since lost it too. Its other columns are the source's, in order."""
    columns = sorted(built["end"]["marts"]["dim_replica_columns"], key=lambda column: column["ordinal_position"])
    kept = {
        table: [c["column_name"] for c in columns if c["table_name"] == table and not c["is_dropped"]]
        for table in captured["tables"]["end"]
    }
    assert kept == {table: list(source["types"]) for table, source in captured["tables"]["end"].items()}
    assert [(c["table_name"], c["column_name"]) for c in columns if c["is_dropped"]] == [("orders", "placed_at")]
    orders = built["end"]["replicas"]["orders"]["rows"]
    assert len(orders) > 1 and [row["placed_at"] for row in orders] == [None] * len(orders)
