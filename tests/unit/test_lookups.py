"""Unit tests of cdc_lakehouse.lookups (the logic behind the Python model
int_row_changes_labelled), on the shared local SparkSession from conftest.py; no dbt."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from cdc_lakehouse.lookups import label_row_changes, literal_map, seed_pairs

REPO = Path(__file__).resolve().parents[2]

# 002's appendix "jdbcType 与数字对照表", typed in from the spec document.
SPEC_JDBC_TYPES = {
    "unknown": 10000,
    "ARRAY": 2003,
    "BIGINT": -5,
    "BINARY": -2,
    "BIT": -7,
    "BLOB": 2004,
    "BOOLEAN": 16,
    "CHAR": 1,
    "CLOB": 2005,
    "DATALINK": 70,
    "DATE": 91,
    "DECIMAL": 3,
    "DISTINCT": 2001,
    "DOUBLE": 8,
    "FLOAT": 6,
    "INTEGER": 4,
    "JAVA_OBJECT": 2000,
    "LONGVARBINARY": -4,
    "LONGVARCHAR": -1,
    "NULL": 0,
    "NUMERIC": 2,
    "OTHER": 1111,
    "REAL": 7,
    "REF": 2006,
    "SMALLINT": 5,
    "STRUCT": 2002,
    "TIME": 92,
    "TIMESTAMP": 93,
    "TINYINT": -6,
    "VARBINARY": -3,
    "VARCHAR": 12,
}

# 000's CanalEntry.EventType enum: name -> number (the second constructor argument).
SPEC_CANAL_EVENT_TYPES = {
    "INSERT": 1,
    "UPDATE": 2,
    "DELETE": 3,
    "CREATE": 4,
    "ALTER": 5,
    "ERASE": 6,
    "QUERY": 7,
    "TRUNCATE": 8,
    "RENAME": 9,
    "CINDEX": 10,
    "DINDEX": 11,
    "GTID": 12,
    "XACOMMIT": 13,
    "XAROLLBACK": 14,
    "MHEARTBEAT": 15,
}

ROW_CHANGES_SCHEMA = StructType(
    [
        StructField("change_id", StringType()),
        StructField("operation", StringType()),
        StructField("column_jdbc_types", MapType(StringType(), IntegerType())),
    ]
)


def _jdbc_types_seed(spark: SparkSession, pairs: list[tuple[str, int]]) -> DataFrame:
    return spark.createDataFrame(pairs, "jdbc_type_name string, jdbc_type_number int")


def _canal_event_types_seed(spark: SparkSession, rows: list[tuple[str, int, int, str]]) -> DataFrame:
    return spark.createDataFrame(rows, "event_type string, event_type_index int, event_type_number int, carries string")


def _read_seed(spark: SparkSession, name: str, ddl: str) -> DataFrame:
    return spark.read.csv(str(REPO / "seeds" / f"{name}.csv"), header=True, schema=ddl)


def _labelled(df: DataFrame) -> dict[str, dict]:
    return {row["change_id"]: row.asDict() for row in df.collect()}


# ------------------------------------------------------------------------- literal_map


def test_literal_map_builds_a_typed_map_literal_from_pairs(spark: SparkSession) -> None:
    df = spark.range(1).select(
        literal_map([(12, "VARCHAR"), (4, "INTEGER"), (-5, "BIGINT")]).alias("by_number"),
        literal_map([("INSERT", 1), ("DELETE", 3)]).alias("by_name"),
    )
    by_number, by_name = df.schema["by_number"].dataType, df.schema["by_name"].dataType
    assert (by_number.keyType, by_number.valueType) == (IntegerType(), StringType())
    assert (by_name.keyType, by_name.valueType) == (StringType(), IntegerType())
    row = df.first()
    assert row["by_number"] == {12: "VARCHAR", 4: "INTEGER", -5: "BIGINT"}
    assert row["by_name"] == {"INSERT": 1, "DELETE": 3}


def test_literal_map_lookup_of_an_absent_key_is_null_not_an_error(spark: SparkSession) -> None:
    names = literal_map([(12, "VARCHAR"), (4, "INTEGER")])
    row = (
        spark.range(1)
        .select(
            F.try_element_at(names, F.lit(4)).alias("known"),
            F.try_element_at(names, F.lit(424242)).alias("unknown"),
            F.try_element_at(names, F.lit(None).cast("int")).alias("null_key"),
        )
        .first()
    )
    assert row.asDict() == {"known": "INTEGER", "unknown": None, "null_key": None}


# -------------------------------------------------------------------------- seed_pairs


def test_seed_pairs_gives_key_value_tuples_in_key_order_and_ignores_other_columns(
    spark: SparkSession,
) -> None:
    seed = _canal_event_types_seed(
        spark,
        [
            ("UPDATE", 1, 2, "row_change"),
            ("ALTER", 4, 5, "schema_change"),
            ("INSERT", 0, 1, "row_change"),
        ],
    )
    assert seed_pairs(seed, "event_type", "event_type_number") == [
        ("ALTER", 5),
        ("INSERT", 1),
        ("UPDATE", 2),
    ]
    numbers = _jdbc_types_seed(spark, [("VARCHAR", 12), ("BIGINT", -5), ("INTEGER", 4)])
    assert seed_pairs(numbers, "jdbc_type_number", "jdbc_type_name") == [
        (-5, "BIGINT"),
        (4, "INTEGER"),
        (12, "VARCHAR"),
    ]


def test_seed_pairs_of_the_real_seeds_match_the_spec_tables(spark: SparkSession) -> None:
    jdbc = _read_seed(spark, "jdbc_types", "jdbc_type_name string, jdbc_type_number int")
    events = _read_seed(
        spark,
        "canal_event_types",
        "event_type string, event_type_index int, event_type_number int, carries string",
    )
    assert dict(seed_pairs(jdbc, "jdbc_type_name", "jdbc_type_number")) == SPEC_JDBC_TYPES
    assert dict(seed_pairs(events, "event_type", "event_type_number")) == SPEC_CANAL_EVENT_TYPES
    # 000: INSERT(0, 1) ... MHEARTBEAT(14, 15): the protobuf index is the number minus one.
    assert dict(seed_pairs(events, "event_type", "event_type_index")) == {
        name: number - 1 for name, number in SPEC_CANAL_EVENT_TYPES.items()
    }


# ------------------------------------------------------------------- label_row_changes


@pytest.fixture(scope="module")
def small_seeds(spark: SparkSession) -> tuple[DataFrame, DataFrame]:
    jdbc = _jdbc_types_seed(spark, [("INTEGER", 4), ("VARCHAR", 12), ("REAL", 7), ("DECIMAL", 3)])
    events = _canal_event_types_seed(
        spark,
        [
            ("INSERT", 0, 1, "row_change"),
            ("UPDATE", 1, 2, "row_change"),
            ("DELETE", 2, 3, "row_change"),
            ("ALTER", 4, 5, "schema_change"),
        ],
    )
    return jdbc, events


def test_label_row_changes_names_each_columns_jdbc_type_and_numbers_the_operation(
    spark: SparkSession, small_seeds: tuple[DataFrame, DataFrame]
) -> None:
    row_changes = spark.createDataFrame(
        [
            ("insert", "INSERT", {"id": 4, "name": 12}),
            ("update", "UPDATE", {"weight": 7, "odd": 424242}),
            ("delete", "DELETE", None),
            ("no-types", "INSERT", {}),
            ("null-number", "UPDATE", {"x": None, "price": 3}),
            ("other-op", "UPSERT", {"id": 4}),
        ],
        ROW_CHANGES_SCHEMA,
    )
    labelled = label_row_changes(row_changes, *small_seeds)

    assert labelled.columns[:3] == ["change_id", "operation", "column_jdbc_types"]
    assert sorted(labelled.columns[3:]) == ["column_jdbc_type_names", "operation_code"]
    names_type = labelled.schema["column_jdbc_type_names"].dataType
    assert (names_type.keyType, names_type.valueType) == (StringType(), StringType())
    assert labelled.schema["operation_code"].dataType == IntegerType()

    assert _labelled(labelled) == {
        "insert": {
            "change_id": "insert",
            "operation": "INSERT",
            "column_jdbc_types": {"id": 4, "name": 12},
            "column_jdbc_type_names": {"id": "INTEGER", "name": "VARCHAR"},
            "operation_code": 1,
        },
        "update": {
            "change_id": "update",
            "operation": "UPDATE",
            "column_jdbc_types": {"weight": 7, "odd": 424242},
            # A number the seed does not know names nothing; the column keeps its key.
            "column_jdbc_type_names": {"weight": "REAL", "odd": None},
            "operation_code": 2,
        },
        "delete": {
            "change_id": "delete",
            "operation": "DELETE",
            # A message without sqlType has no names either: NULL stays NULL, not {}.
            "column_jdbc_types": None,
            "column_jdbc_type_names": None,
            "operation_code": 3,
        },
        "no-types": {
            "change_id": "no-types",
            "operation": "INSERT",
            "column_jdbc_types": {},
            "column_jdbc_type_names": {},
            "operation_code": 1,
        },
        "null-number": {
            "change_id": "null-number",
            "operation": "UPDATE",
            "column_jdbc_types": {"x": None, "price": 3},
            "column_jdbc_type_names": {"x": None, "price": "DECIMAL"},
            "operation_code": 2,
        },
        "other-op": {
            "change_id": "other-op",
            "operation": "UPSERT",
            "column_jdbc_types": {"id": 4},
            "column_jdbc_type_names": {"id": "INTEGER"},
            "operation_code": None,
        },
    }


def test_label_row_changes_with_the_real_seeds_gives_the_spec_names_and_numbers(
    spark: SparkSession,
) -> None:
    jdbc = _read_seed(spark, "jdbc_types", "jdbc_type_name string, jdbc_type_number int")
    events = _read_seed(
        spark,
        "canal_event_types",
        "event_type string, event_type_index int, event_type_number int, carries string",
    )
    # One column per type of 002's appendix, named after the type it carries.
    every_type = {name: number for name, number in SPEC_JDBC_TYPES.items()}
    row_changes = spark.createDataFrame(
        [
            ("all-types", "UPDATE", every_type),
            ("ins", "INSERT", {"ID": 4}),
            ("del", "DELETE", {"ID": 4, "TEST_NAME": 12}),
        ],
        ROW_CHANGES_SCHEMA,
    )
    labelled = _labelled(label_row_changes(row_changes, jdbc, events))

    assert labelled["all-types"]["column_jdbc_type_names"] == {name: name for name in every_type}
    assert {key: row["operation_code"] for key, row in labelled.items()} == {
        "all-types": 2,
        "ins": 1,
        "del": 3,
    }
    assert labelled["del"]["column_jdbc_type_names"] == {"ID": "INTEGER", "TEST_NAME": "VARCHAR"}


def test_label_row_changes_keeps_every_row_and_column_value(
    spark: SparkSession, small_seeds: tuple[DataFrame, DataFrame]
) -> None:
    """A lookup, not a join: no row is dropped or duplicated, other columns are untouched."""
    row_changes = spark.createDataFrame(
        [(str(i), ["INSERT", "UPDATE", "DELETE", "NOPE"][i % 4], {"c": i % 13}) for i in range(200)],
        ROW_CHANGES_SCHEMA,
    ).repartition(3)
    labelled = label_row_changes(row_changes, *small_seeds)
    assert labelled.count() == 200
    assert sorted((r.change_id, r.operation, r.column_jdbc_types["c"]) for r in labelled.collect()) == sorted(
        (str(i), ["INSERT", "UPDATE", "DELETE", "NOPE"][i % 4], i % 13) for i in range(200)
    )
