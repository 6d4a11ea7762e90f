"""Unit tests of the OMS staging (base_oms_avro__records and stg_oms_avro__messages compiled once
and run in the shared local SparkSession, cdc_lakehouse.avro.oms between them, as
base_oms_avro__binary_values runs it, over every test's records at once): every ColumnValue branch
to its canonical text, bad values and records rejected with their reason, control records
skipped, shard sets reassembled, WKB to WKT; no build. Expected texts are MySQL's text for the
value, as the other formats give it."""

from __future__ import annotations

import json
import struct
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.avro.oms import binary_values, images_json
from cdc_tools.generator.formats.oms_avro import UNSET_FIELDS, image_bytes
from support.compiled_models import CONTAINER_RECORDS, landed_file_lines, run_compiled, seed, staged

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


Line = dict[str, Any] | str
# Each test's files of records, by the test's name (`_land`): they land together, each test's in
# folders of its own, and go through the three models in one run (`staged_landings`), planned
# once rather than once per test. Shard sets are assembled by record id across files, so each
# test's shards have ids of their own.
LANDINGS: dict[str, list[tuple[Line, ...]]] = {}
Staged = dict[str, list[dict[str, Any]]]


def _land(name: str, *files: tuple[Line, ...]) -> str:
    """Lands a test's records, each file's lines in order (files a.jsonl, b.jsonl, ...)."""
    assert name not in LANDINGS, f"two tests land records as {name}: each would read the other's rows"
    LANDINGS[name] = list(files)
    return name


@pytest.fixture(scope="module")
def staged_landings(spark: SparkSession, compiled: dict[str, str]) -> Staged:
    """Each test's staged messages, by the name it landed its records under."""
    landed = landed_file_lines(
        spark,
        [
            (
                f"file:/landing/oms_avro/{name}/{chr(ord('a') + file)}.jsonl",
                number,
                line if isinstance(line, str) else json.dumps(line),
                LANDED_AT,
            )
            for name, files in LANDINGS.items()
            for file, lines in enumerate(files)
            for number, line in enumerate(lines, start=1)
        ],
    )
    no_containers = spark.createDataFrame([], CONTAINER_RECORDS)
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
    by_name: Staged = defaultdict(list)
    for row in staged(run_compiled(spark, compiled["stg_oms_avro__messages"], relations)):
        by_name[row["file_path"].split("/")[-2]].append(row)
    return by_name


ID_AND_V = {"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 15}]}


def _image(v: str | None) -> list[dict[str, Any]]:
    """The values of an image of (id 1, v `v`), as ID_AND_V names them."""
    return [
        {"type_info": "INTEGER", "value": {"int": 1}},
        {"type_info": "STRING", "value": None if v is None else {"string": v}},
    ]


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


EVERY_BRANCH = _land(
    "every_branch",
    (
        _insert(
            1,
            {"id": ("INTEGER", {"int": 1})}
            | {f"c{number}": (type_info, value) for number, (_, type_info, value, _) in enumerate(BRANCHES)},
        ),
    ),
)


def test_every_column_value_branch_gives_its_canonical_text(staged_landings: Staged) -> None:
    (row,) = staged_landings[EVERY_BRANCH]
    assert (row["disposition"], row["disposition_reason"]) == ("row_change", None)
    assert row["after_image"] == {"id": "1"} | {f"c{number}": text for number, (_, _, _, text) in enumerate(BRANCHES)}
    # OMS DataType names as MySQL type names (seed oms_data_types); a DecimalObject's own precision and scale.
    assert row["column_types"]["c1"] == "int" and row["column_types"]["c11"] == "decimal(12,2)"
    assert row["key_columns"] == ["id"]
    assert row["before_image"] is None


NAMED_TYPES = _land(
    "named_types",
    (
        _insert(
            1,
            {
                "id": ("INTEGER", {"int": 1}),
                "price": ("DECIMAL", {NS + "DecimalObject": {"precision": 5, "scale": 2, "value": "1.5"}}),
                "unpriced": ("DECIMAL", None),
                "odd": ("NOT_A_TYPE", {"string": "x"}),
            },
        ),
    ),
)


def test_data_types_are_named_by_the_seed(staged_landings: Staged) -> None:
    """OMS DataType names as seed oms_data_types names them in MySQL's words; a name it lacks
    stays as sent. A DecimalObject states its column's precision and scale, which the name lacks;
    a NULL value states none."""
    (row,) = staged_landings[NAMED_TYPES]
    assert row["column_types"] == {"id": "int", "price": "decimal(5,2)", "unpriced": "decimal", "odd": "NOT_A_TYPE"}


RECORD_FIELDS = _land("record_fields", (_insert(9, {"id": ("INTEGER", {"int": 1})}),))


def test_record_fields_become_message_columns(staged_landings: Staged) -> None:
    (row,) = staged_landings[RECORD_FIELDS]
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


_DATED = json.dumps(
    _insert(
        1, {"id": ("INTEGER", {"int": 1}), "d": ("DATE", {NS + "DateObject": {"year": 2024, "month": 5, "day": 6}})}
    )
)
OTHER_NAMESPACES = _land("other_namespaces", (_DATED.replace(NS, "org.example.whatever."), _DATED.replace(NS, "")))


def test_any_namespace_decodes_by_the_last_segment_of_branch_names(staged_landings: Staged) -> None:
    rows = staged_landings[OTHER_NAMESPACES]
    assert [(r["disposition"], r["after_image"]) for r in rows] == [("row_change", {"id": "1", "d": "2024-05-06"})] * 2


_ABC = {"a": ("INTEGER", {"int": 1}), "b": ("STRING", {"string": "x"}), "c": ("INTEGER", {"int": 3})}
KEYS = _land(
    "keys",
    (
        _insert(1, _ABC, pkIndexes={"array": [2, 0]}, ukIndexes={"array": [[1]]}),
        _insert(2, _ABC, pkIndexes=None, ukIndexes={"array": [[1, 2], [0]]}),
        _insert(3, _ABC, pkIndexes=None),
    ),
)


def test_keys_come_from_pk_indexes_else_the_first_unique_key(staged_landings: Staged) -> None:
    rows = staged_landings[KEYS]
    assert [r["key_columns"] for r in rows] == [["c", "a"], ["b", "c"], None]


UPDATE_AND_DELETE = _land(
    "update_and_delete",
    (
        _record(
            1,
            "UPDATE",
            fields=ID_AND_V,
            pkIndexes={"array": [0]},
            beforeImages={"array": _image(None)},
            afterImages={"array": _image("new")},
        ),
        _record(2, "DELETE", fields=ID_AND_V, pkIndexes={"array": [0]}, beforeImages={"array": _image("new")}),
    ),
)


def test_update_and_delete_carry_their_images(staged_landings: Staged) -> None:
    rows = staged_landings[UPDATE_AND_DELETE]
    assert [(r["source_operation"], r["disposition"]) for r in rows] == [
        ("UPDATE", "row_change"),
        ("DELETE", "row_change"),
    ]
    assert rows[0]["before_image"] == {"id": "1", "v": None} and rows[0]["after_image"] == {"id": "1", "v": "new"}
    assert rows[1]["before_image"] == {"id": "1", "v": "new"} and rows[1]["after_image"] is None


CONTROL_AND_DDL = _land(
    "control_and_ddl",
    (
        _record(1, "BEGIN"),
        _record(2, "COMMIT"),
        _record(3, "HEARTBEAT", xid=None),
        _record(4, "DDL", tableName=None, sql={"string": "CREATE DATABASE `shop`"}),
    ),
)


def test_control_records_are_skipped_and_ddl_is_a_schema_change(staged_landings: Staged) -> None:
    rows = staged_landings[CONTROL_AND_DDL]
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


BAD_VALUE_RECORDS = _land(
    "bad_values",
    (
        _insert(1, {"id": ("INTEGER", {"int": 1})}),
        *(
            _insert(number, {"id": ("INTEGER", {"int": number}), "v": (type_info, value)})
            for number, (type_info, value, _) in enumerate(BAD_VALUES, start=2)
        ),
    ),
)


def test_a_bad_value_rejects_its_record_with_a_specific_reason(staged_landings: Staged) -> None:
    rows = staged_landings[BAD_VALUE_RECORDS]
    assert [(r["disposition"], r["disposition_reason"]) for r in rows] == [("row_change", None)] + [
        ("rejected", reason) for _, _, reason in BAD_VALUES
    ]


_ONE = {"id": ("INTEGER", {"int": 1})}
BAD_RECORDS = _land(
    "bad_records",
    (
        '{"id": 1, "operation": ',
        "",
        "[1, 2]",
        json.dumps(_insert(1, _ONE)).replace('"id": 1,', '"id": "one",', 1),
        _insert(2, _ONE, xid={"int": 5}),
        _record(3, None),
        _record(4, "UPSERT"),
        _insert(5, _ONE, schemaName={"string": ""}),
        _insert(6, _ONE, tableName=None),
        _record(7, "INSERT"),
        _insert(8, _ONE, pkIndexes={"array": [3]}),
        _insert(9, _ONE, fields={"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "x", "dataTypeNumber": 3}]}),
        _record(10, "DELETE", fields={"array": [{"name": "id", "dataTypeNumber": 3}]}),
        _record(11, "DDL"),
    ),
)


def test_bad_records_are_rejected_with_a_reason(staged_landings: Staged) -> None:
    rows = staged_landings[BAD_RECORDS]
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

    return [
        _record(
            record_id,
            "UPDATE",
            fields=ID_AND_V,
            pkIndexes={"array": [0]},
            total=total,
            index=index,
            beforeImageBytes=piece(before_bytes, index),
            afterImageBytes=piece(after_bytes, index),
        )
        for index in (keep if keep is not None else range(total))
    ]


_SET_5 = _shards(5, _image("before " * 30), _image("after " * 30), 3)
# Landed out of order, with a redelivered shard.
COMPLETE_SET = _land("complete_set", (_SET_5[2], _SET_5[0], _SET_5[1], _SET_5[1]))


def test_a_complete_shard_set_becomes_one_message_at_its_shard_0(staged_landings: Staged) -> None:
    rows = staged_landings[COMPLETE_SET]
    assert [(r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("skipped", "shard_merged"),
        ("row_change", None),
        ("skipped", "shard_merged"),
        ("skipped", "duplicate_shard"),
    ]
    assert rows[1]["before_image"] == {"id": "1", "v": "before " * 30}
    assert rows[1]["after_image"] == {"id": "1", "v": "after " * 30}
    assert rows[1]["key_columns"] == ["id"]


# A restarted producer sends the set again in a new file; the build counts the second change as a
# redelivery of the first, by their position.
_SET_9 = _shards(9, _image("before " * 30), _image("after " * 30), 2)
SET_SENT_AGAIN = _land("set_sent_again", (_SET_9[1], _SET_9[0]), (_SET_9[0], _SET_9[1]))


def test_a_shard_set_sent_again_is_reassembled_again_at_the_same_position(staged_landings: Staged) -> None:
    rows = staged_landings[SET_SENT_AGAIN]
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


# Shards 0 and 2 of set 6, then all of set 7.
INCOMPLETE_SET = _land(
    "incomplete_set",
    (*_shards(6, _image("b"), _image("a"), 3, keep=range(0, 3, 2)), *_shards(7, _image("b"), _image("a"), 2)),
)


def test_an_incomplete_shard_set_is_rejected_whole(staged_landings: Staged) -> None:
    rows = staged_landings[INCOMPLETE_SET]
    assert [(r["message_id"], r["disposition"], r["disposition_reason"]) for r in rows] == [
        ("6", "rejected", "incomplete_shards"),
        ("6", "rejected", "incomplete_shards"),
        ("7", "row_change", None),
        ("7", "skipped", "shard_merged"),
    ]


NOT_AN_IMAGE_ARRAY = _land(
    "not_an_image_array", (_shards(8, _image("b"), _image("a"), 1)[0] | {"afterImageBytes": "\u00ff\u00ff\u00ff"},)
)


def test_shard_bytes_that_are_not_an_image_array_are_rejected(staged_landings: Staged) -> None:
    (row,) = staged_landings[NOT_AN_IMAGE_ARRAY]
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
