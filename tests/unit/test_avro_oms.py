"""Unit tests of the OMS staging (base_oms_avro__records and stg_oms_avro__messages compiled once
and run in the shared local SparkSession, cdc_lakehouse.avro.oms between them, as
base_oms_avro__binary_values runs it): every ColumnValue branch to its canonical text, bad values
and records rejected with their reason, control records skipped, shard sets reassembled, WKB to
WKT; no build. Expected texts are MySQL's text for the value, as the other formats give it."""

from __future__ import annotations

import json
import struct
from datetime import datetime
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.avro.oms import binary_values, images_json
from cdc_tools.generator.formats.oms_avro import UNSET_FIELDS, image_bytes
from support.compiled_models import LANDING, landed_file_lines, run_compiled, seed, staged

NS = "com.oceanbase.oms.avro."
LANDED_AT = datetime(2024, 1, 1)


def _record(record_id: int, operation: str | None, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": record_id,
        "version": {"int": 1},
        "operation": None if operation is None else {NS + "Operation": operation},
        "xid": {"string": "tx-1"},
        "txind": {NS + "TxindType": "W"},
        "position": {"string": "mysql-bin.000001:4"},
        "timestamp": {"long": 1700000000},
        "source": {NS + "Source": {"sourceType": "OB_MYSQL", "version": "4.2.1"}},
        **UNSET_FIELDS,
        "schemaName": {"string": "shop"},
        "tableName": {"string": "t"},
    }
    record.update(fields)
    return record


def _insert(record_id: int, values: dict[str, tuple[str, Any]], **fields: Any) -> dict[str, Any]:
    """An INSERT of one row: column -> (type_info, value union)."""
    row = {
        "fields": {"array": [{"name": name, "dataTypeNumber": 0} for name in values]},
        "pkIndexes": {"array": [0]},
        "afterImages": {"array": [{"type_info": t, "value": v} for t, v in values.values()]},
    }
    return _record(record_id, "INSERT", **(row | fields))


def _decode(spark: SparkSession, compiled: dict[str, str], *lines: dict[str, Any] | str) -> list[dict[str, Any]]:
    """The staged messages of records landed as lines of one file, through the three models."""
    return _decode_files(spark, compiled, [lines])


def _decode_files(
    spark: SparkSession, compiled: dict[str, str], files: list[tuple[dict[str, Any] | str, ...]]
) -> list[dict[str, Any]]:
    """The staged messages of records landed as the lines of files a.jsonl, b.jsonl, ... in turn."""
    landed = landed_file_lines(
        spark,
        [
            (
                f"file:/landing/oms_avro/{chr(ord('a') + file)}.jsonl",
                number,
                line if isinstance(line, str) else json.dumps(line),
                LANDED_AT,
            )
            for file, lines in enumerate(files)
            for number, line in enumerate(lines, start=1)
        ],
    )
    no_containers = spark.createDataFrame([], LANDING + ", loaded_at timestamp")
    records = run_compiled(
        spark,
        compiled["base_oms_avro__records"],
        {"cdc_landing.oms_avro": landed, "cdc.base_oms_avro__container_records": no_containers},
    ).cache()
    relations = {
        "cdc.base_oms_avro__records": records,
        "cdc.base_oms_avro__binary_values": binary_values(records).withColumn("loaded_at", F.current_timestamp()),
        "cdc.oms_data_types": seed(spark, "oms_data_types"),
    }
    return staged(run_compiled(spark, compiled["stg_oms_avro__messages"], relations))


def _point(x: float, y: float, order: str = "<") -> bytes:
    return struct.pack(f"{order}BIdd", 1 if order == "<" else 0, 1, x, y)


BRANCHES: list[tuple[str, str, Any, str | None]] = [
    ("null", "STRING", None, None),
    ("int", "INTEGER", {"int": -7}, "-7"),
    ("long", "LONG", {"long": 9007199254740993}, "9007199254740993"),
    ("float", "FLOAT", {"float": 5.18}, "5.18"),
    ("double", "DOUBLE", {"double": 0.1}, "0.1"),
    ("float as double", "FLOAT", {"double": 5.179999828338623}, "5.18"),
    ("boolean", "BOOLEAN", {"boolean": False}, "false"),
    ("bytes", "BINARY", {"bytes": "\u0000\u00ffA"}, "\u0000\u00ffA"),
    ("string", "STRING", {"string": 'O\'Brien "q" 日本 😀'}, 'O\'Brien "q" 日本 😀'),
    ("StringObject", "STRING", {NS + "StringObject": {"charsetName": "utf8mb4", "value": "Zoë 😀"}}, "Zoë 😀"),
    ("StringObject latin1", "STRING", {NS + "StringObject": {"charsetName": "latin1", "value": "café €"}}, "café €"),
    ("DecimalObject", "DECIMAL", {NS + "DecimalObject": {"precision": 12, "scale": 2, "value": "-10.5"}}, "-10.50"),
    (
        "DecimalObject exact",
        "DECIMAL",
        {NS + "DecimalObject": {"precision": 40, "scale": 6, "value": "123456789012345678901234567890.123456"}},
        "123456789012345678901234567890.123456",
    ),
    ("DecimalObject scale 0", "DECIMAL", {NS + "DecimalObject": {"precision": 5, "scale": 0, "value": "42"}}, "42"),
    ("DateObject", "DATE", {NS + "DateObject": {"year": 815, "month": 2, "day": 9}}, "0815-02-09"),
    (
        "TimeObject",
        "TIME",
        {NS + "TimeObject": {"negative": True, "hours": 838, "minutes": 59, "seconds": 58, "nanos": 500000000}},
        "-838:59:58.5",
    ),
    (
        "TimeObject plain",
        "TIME",
        {NS + "TimeObject": {"negative": False, "hours": 7, "minutes": 5, "seconds": 3, "nanos": 0}},
        "07:05:03",
    ),
    (
        "DateTimeObject",
        "DATETIME",
        {
            NS + "DateTimeObject": {
                "year": 2024,
                "month": 1,
                "day": 2,
                "hours": 3,
                "minutes": 4,
                "seconds": 5,
                "nanos": 120000,
            }
        },
        "2024-01-02 03:04:05.00012",
    ),
    (
        "TimestampObject",
        "TIMESTAMP",
        {NS + "TimestampObject": {"seconds": 1700000000, "nanos": 250000000, "timezone": {"string": "Asia/Shanghai"}}},
        "2023-11-15 06:13:20.25",
    ),
    (
        "TimestampObject UTC",
        "TIMESTAMP",
        {NS + "TimestampObject": {"seconds": 0, "nanos": 0, "timezone": None}},
        "1970-01-01 00:00:00",
    ),
    ("BitObject", "BIT", {NS + "BitObject": {"bit_length": 10, "value": "1000000001"}}, "513"),
    ("BitObject 64", "BIT", {NS + "BitObject": {"bit_length": 64, "value": "1" * 64}}, "18446744073709551615"),
    ("EnumSetValue", "SET", {NS + "EnumSetValue": {"value": "a,c", "defines": {"array": ["a", "b", "c"]}}}, "a,c"),
    (
        "GeometryValue",
        "GEOMETRY",
        {NS + "GeometryValue": {"srid": 4326, "wkb": _point(116.397, 39.908).decode("latin-1")}},
        "SRID=4326;POINT(116.397 39.908)",
    ),
]


def test_every_column_value_branch_gives_its_canonical_text(spark: SparkSession, compiled: dict[str, str]) -> None:
    values = {"id": ("INTEGER", {"int": 1})} | {
        f"c{number}": (type_info, value) for number, (_, type_info, value, _) in enumerate(BRANCHES)
    }
    (row,) = _decode(spark, compiled, _insert(1, values))
    assert (row["disposition"], row["disposition_reason"]) == ("row_change", None)
    assert row["after_image"] == {"id": "1"} | {f"c{number}": text for number, (_, _, _, text) in enumerate(BRANCHES)}
    # OMS DataType names as MySQL type names (seed oms_data_types); a DecimalObject's own precision and scale.
    assert row["column_types"]["c1"] == "int" and row["column_types"]["c11"] == "decimal(12,2)"
    assert row["key_columns"] == ["id"]
    assert row["before_image"] is None


def test_data_types_are_named_by_the_seed(spark: SparkSession, compiled: dict[str, str]) -> None:
    """OMS DataType names as seed oms_data_types names them in MySQL's words; a name it lacks
    stays as sent. A DecimalObject states its column's precision and scale, which the name lacks;
    a NULL value states none."""
    values = {
        "id": ("INTEGER", {"int": 1}),
        "price": ("DECIMAL", {NS + "DecimalObject": {"precision": 5, "scale": 2, "value": "1.5"}}),
        "unpriced": ("DECIMAL", None),
        "odd": ("NOT_A_TYPE", {"string": "x"}),
    }
    (row,) = _decode(spark, compiled, _insert(1, values))
    assert row["column_types"] == {"id": "int", "price": "decimal(5,2)", "unpriced": "decimal", "odd": "NOT_A_TYPE"}


def test_record_fields_become_message_columns(spark: SparkSession, compiled: dict[str, str]) -> None:
    (row,) = _decode(spark, compiled, _insert(9, {"id": ("INTEGER", {"int": 1})}))
    assert row["source_format"] == "oms_avro" and row["message_index"] == 0
    assert (row["message_id"], row["database_name"], row["table_name"], row["source_operation"]) == (
        "9",
        "shop",
        "t",
        "INSERT",
    )
    assert row["transaction_id"] == "tx-1"
    assert row["event_at"] == datetime(2023, 11, 14, 22, 13, 20) and row["emitted_at"] is None
    assert row["source_position"] == "mysql-bin.000001:4"


def test_any_namespace_decodes_by_the_last_segment_of_branch_names(
    spark: SparkSession, compiled: dict[str, str]
) -> None:
    record = _insert(
        1, {"id": ("INTEGER", {"int": 1}), "d": ("DATE", {NS + "DateObject": {"year": 2024, "month": 5, "day": 6}})}
    )
    other = json.loads(json.dumps(record).replace(NS, "org.example.whatever."))
    bare = json.loads(json.dumps(record).replace(NS, ""))
    rows = _decode(spark, compiled, other, bare)
    assert [(r["disposition"], r["after_image"]) for r in rows] == [("row_change", {"id": "1", "d": "2024-05-06"})] * 2


def test_keys_come_from_pk_indexes_else_the_first_unique_key(spark: SparkSession, compiled: dict[str, str]) -> None:
    values = {"a": ("INTEGER", {"int": 1}), "b": ("STRING", {"string": "x"}), "c": ("INTEGER", {"int": 3})}
    with_pk = _insert(1, values, pkIndexes={"array": [2, 0]}, ukIndexes={"array": [[1]]})
    with_uk = _insert(2, values, pkIndexes=None, ukIndexes={"array": [[1, 2], [0]]})
    without = _insert(3, values, pkIndexes=None)
    rows = _decode(spark, compiled, with_pk, with_uk, without)
    assert [r["key_columns"] for r in rows] == [["c", "a"], ["b", "c"], None]


def test_update_and_delete_carry_their_images(spark: SparkSession, compiled: dict[str, str]) -> None:
    fields = {"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 15}]}

    def image(v: str | None) -> dict[str, Any]:
        return {
            "array": [
                {"type_info": "INTEGER", "value": {"int": 1}},
                {"type_info": "STRING", "value": None if v is None else {"string": v}},
            ]
        }

    update = _record(
        1, "UPDATE", fields=fields, pkIndexes={"array": [0]}, beforeImages=image(None), afterImages=image("new")
    )
    delete = _record(2, "DELETE", fields=fields, pkIndexes={"array": [0]}, beforeImages=image("new"))
    rows = _decode(spark, compiled, update, delete)
    assert [(r["source_operation"], r["disposition"]) for r in rows] == [
        ("UPDATE", "row_change"),
        ("DELETE", "row_change"),
    ]
    assert rows[0]["before_image"] == {"id": "1", "v": None} and rows[0]["after_image"] == {"id": "1", "v": "new"}
    assert rows[1]["before_image"] == {"id": "1", "v": "new"} and rows[1]["after_image"] is None


def test_control_records_are_skipped_and_ddl_is_a_schema_change(spark: SparkSession, compiled: dict[str, str]) -> None:
    ddl = _record(4, "DDL", tableName=None, sql={"string": "CREATE DATABASE `shop`"})
    rows = _decode(spark, compiled, _record(1, "BEGIN"), _record(2, "COMMIT"), _record(3, "HEARTBEAT", xid=None), ddl)
    assert [(r["source_operation"], r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("BEGIN", "skipped", "control_event"),
        ("COMMIT", "skipped", "control_event"),
        ("HEARTBEAT", "skipped", "control_event"),
        ("DDL", "schema_change", None),
    ]
    assert (rows[3]["sql_text"], rows[3]["table_name"]) == ("CREATE DATABASE `shop`", None)


BAD_VALUES: list[tuple[str, Any, str]] = [
    ("STRING", {NS + "FancyObject": {"x": 1}}, "unknown_value_branch"),
    ("STRING", {"string": "a", "int": 1}, "invalid_union"),
    ("STRING", {NS + "StringObject": {"charsetName": "ascii", "value": "café"}}, "invalid_charset"),
    ("STRING", {NS + "StringObject": {"charsetName": "utf8", "value": "emoji 😀"}}, "invalid_charset"),
    ("STRING", {NS + "StringObject": {"charsetName": "klingon", "value": "qapla'"}}, "unknown_charset"),
    ("BINARY", {"bytes": "not a byte: ☕"}, "invalid_bytes"),
    ("GEOMETRY", {NS + "GeometryValue": {"srid": 0, "wkb": _point(1, 2)[:-3].decode("latin-1")}}, "invalid_wkb"),
    ("GEOMETRY", {NS + "GeometryValue": {"srid": 0, "wkb": "\u0001\u0063\u0000\u0000\u0000"}}, "invalid_wkb"),
    ("DECIMAL", {NS + "DecimalObject": {"precision": 5, "scale": 2, "value": "1.5e3"}}, "invalid_decimal"),
    ("DECIMAL", {NS + "DecimalObject": {"precision": 5, "scale": 1, "value": "1.25"}}, "invalid_decimal"),
    ("DATE", {NS + "DateObject": {"year": 2024, "month": 13, "day": 1}}, "invalid_date"),
    (
        "TIME",
        {NS + "TimeObject": {"negative": False, "hours": 839, "minutes": 0, "seconds": 0, "nanos": 0}},
        "invalid_time",
    ),
    (
        "TIMESTAMP",
        {NS + "TimestampObject": {"seconds": 1, "nanos": 0, "timezone": {"string": "Mars/Olympus"}}},
        "invalid_time_zone",
    ),
    ("BIT", {NS + "BitObject": {"bit_length": 3, "value": "102"}}, "invalid_bit"),
    ("INTEGER", {"int": "seven"}, "invalid_number"),
]


def test_a_bad_value_rejects_its_record_with_a_specific_reason(spark: SparkSession, compiled: dict[str, str]) -> None:
    good = _insert(1, {"id": ("INTEGER", {"int": 1})})
    bad = [
        _insert(number, {"id": ("INTEGER", {"int": number}), "v": (type_info, value)})
        for number, (type_info, value, _) in enumerate(BAD_VALUES, start=2)
    ]
    rows = _decode(spark, compiled, good, *bad)
    assert [(r["disposition"], r["disposition_reason"]) for r in rows] == [("row_change", None)] + [
        ("rejected", reason) for _, _, reason in BAD_VALUES
    ]


def test_bad_records_are_rejected_with_a_reason(spark: SparkSession, compiled: dict[str, str]) -> None:
    one = {"id": ("INTEGER", {"int": 1})}
    rows = _decode(
        spark,
        compiled,
        '{"id": 1, "operation": ',
        "",
        "[1, 2]",
        json.dumps(_insert(1, one)).replace('"id": 1,', '"id": "one",', 1),
        _insert(2, one, xid={"int": 5}),
        _record(3, None),
        _record(4, "UPSERT"),
        _insert(5, one, schemaName={"string": ""}),
        _insert(6, one, tableName=None),
        _record(7, "INSERT"),
        _insert(8, one, pkIndexes={"array": [3]}),
        _insert(9, one, fields={"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "x", "dataTypeNumber": 3}]}),
        _record(10, "DELETE", fields={"array": [{"name": "id", "dataTypeNumber": 3}]}),
        _record(11, "DDL"),
    )
    assert [r["disposition_reason"] for r in rows] == [
        "malformed_json",
        "empty_line",
        "not_a_json_object",
        "invalid_field_type",
        "unknown_union_branch",
        "missing_event_type",
        "unknown_event_type",
        "missing_database",
        "missing_table",
        "missing_fields",
        "invalid_key_index",
        "image_field_count_mismatch",
        "missing_row_image",
        "missing_sql",
    ]
    assert {r["disposition"] for r in rows} == {"rejected"}


def _shards(record_id: int, before: list | None, after: list, total: int, keep: range | None = None) -> list[dict]:
    before_bytes, after_bytes = image_bytes(before), image_bytes(after)

    def piece(data: bytes, index: int) -> str:
        size = -(-len(data) // total)
        return data[index * size : (index + 1) * size].decode("latin-1")

    shard_fields = {"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 15}]}
    return [
        _record(
            record_id,
            "UPDATE",
            fields=shard_fields,
            pkIndexes={"array": [0]},
            total=total,
            index=index,
            beforeImageBytes=piece(before_bytes, index),
            afterImageBytes=piece(after_bytes, index),
        )
        for index in (keep if keep is not None else range(total))
    ]


def _image(v: str) -> list[dict[str, Any]]:
    return [{"type_info": "INTEGER", "value": {"int": 1}}, {"type_info": "STRING", "value": {"string": v}}]


def test_a_complete_shard_set_becomes_one_message_at_its_shard_0(spark: SparkSession, compiled: dict[str, str]) -> None:
    shards = _shards(5, _image("before " * 30), _image("after " * 30), 3)
    # Landed out of order, with a redelivered shard.
    rows = _decode(spark, compiled, shards[2], shards[0], shards[1], shards[1])
    assert [(r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("skipped", "shard_merged"),
        ("row_change", None),
        ("skipped", "shard_merged"),
        ("skipped", "duplicate_shard"),
    ]
    assert rows[1]["before_image"] == {"id": "1", "v": "before " * 30}
    assert rows[1]["after_image"] == {"id": "1", "v": "after " * 30}
    assert rows[1]["key_columns"] == ["id"]


def test_a_shard_set_sent_again_is_reassembled_again_at_the_same_position(
    spark: SparkSession, compiled: dict[str, str]
) -> None:
    # A restarted producer sends the set again in a new file; the build counts the second change
    # as a redelivery of the first, by their position.
    shards = _shards(9, _image("before " * 30), _image("after " * 30), 2)
    rows = _decode_files(spark, compiled, [(shards[1], shards[0]), (shards[0], shards[1])])
    assert [(r["file_path"][-7:], r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("a.jsonl", "skipped", "shard_merged"),
        ("a.jsonl", "row_change", None),
        ("b.jsonl", "row_change", None),
        ("b.jsonl", "skipped", "shard_merged"),
    ]
    first, again = rows[1], rows[2]
    assert again["source_coordinates"] == first["source_coordinates"] == "mysql-bin.000001:4"
    for row in (first, again):
        assert row["before_image"] == {"id": "1", "v": "before " * 30}
        assert row["after_image"] == {"id": "1", "v": "after " * 30}


def test_an_incomplete_shard_set_is_rejected_whole(spark: SparkSession, compiled: dict[str, str]) -> None:
    missing_middle = _shards(6, _image("b"), _image("a"), 3, keep=range(0, 3, 2))
    rows = _decode(spark, compiled, *missing_middle, *_shards(7, _image("b"), _image("a"), 2))
    assert [(r["message_id"], r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("6", "rejected", "incomplete_shards"),
        ("6", "rejected", "incomplete_shards"),
        ("7", "row_change", None),
        ("7", "skipped", "shard_merged"),
    ]


def test_shard_bytes_that_are_not_an_image_array_are_rejected(spark: SparkSession, compiled: dict[str, str]) -> None:
    shard = _shards(8, _image("b"), _image("a"), 1)[0]
    shard["afterImageBytes"] = "\u00ff\u00ff\u00ff"
    (row,) = _decode(spark, compiled, shard)
    assert (row["disposition"], row["disposition_reason"]) == ("rejected", "invalid_shard_bytes")


def test_image_bytes_round_trip_to_the_json_encoding() -> None:
    image = _image("x") + [{"type_info": "DATE", "value": {NS + "DateObject": {"year": 2024, "month": 1, "day": 2}}}]
    assert json.loads(images_json(image_bytes(image)) or "null") == image
    assert images_json(image_bytes(image)[:-1]) is None
    assert images_json(image_bytes(image) + b"\x00") is None


def test_json_encoded_records_become_containers_with_their_branches(tmp_path) -> None:
    from cdc_lakehouse.avro import record_schema
    from cdc_lakehouse.avro.container import container_records
    from cdc_tools.avro_json import write_container

    values = {
        "id": ("INTEGER", {"int": 1}),
        "s": ("STRING", {"string": "plain"}),
        "b": ("BINARY", {"bytes": "\u00ff"}),
        "f": ("DOUBLE", {"double": 5.5}),
        "d": ("DATE", {NS + "DateObject": {"year": 2024, "month": 1, "day": 2}}),
        "t": (
            "DATETIME",
            {
                NS + "DateTimeObject": {
                    "year": 2024,
                    "month": 1,
                    "day": 2,
                    "hours": 3,
                    "minutes": 4,
                    "seconds": 5,
                    "nanos": 6,
                }
            },
        ),
    }
    line = json.dumps(_insert(1, values))
    path = tmp_path / "one.avro"
    assert write_container(path, record_schema("oms_avro"), [line]) == 1
    ((number, payload),) = container_records(path.read_bytes(), record_schema("oms_avro"))
    assert number == 1 and json.loads(payload or "null") == json.loads(line)
