"""Unit tests of the DTS staging SQL (stg_dts_avro__messages, compiled once and run in the shared
local SparkSession over every test's records at once) on hand-written DTS records, of the
JSON-encoding reader the generator's binary writer uses, and of the generator's dts_avro
encoder; no build."""

from __future__ import annotations

import io
import json
from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pytest
from pyspark.sql import SparkSession

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.container import container_records
from cdc_tools.avro_json import JsonDatums
from cdc_tools.generator.formats import dts_avro
from cdc_tools.generator.model import Column, ColumnType
from cdc_tools.generator.stream import logical_stream
from cdc_tools.generator.writer import generate
from support.compiled_models import CONTAINER_RECORDS, landed_file_lines, run_compiled, seed, staged

N = "com.alibaba.dts.formats.avro."
SCHEMA = record_schema("dts_avro")
KEY = {"pk_uk_info": '{"PRIMARY":["id"]}'}


def _record(operation: str = "INSERT", object_name: str | None = "shop.t", **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "version": 1,
        "id": 42,
        "sourceTimestamp": 1704164645,
        "sourcePosition": "400@mysql-bin.000003",
        "safeSourcePosition": "",
        "sourceTxid": "9",
        "source": {"sourceType": "MySQL", "version": "8.0"},
        "operation": operation,
        "objectName": None if object_name is None else {"string": object_name},
        "processTimestamps": {"array": [1704164645200, 1704164645250]},
        "tags": KEY,
        "fields": None,
        "beforeImages": None,
        "afterImages": None,
    }
    record.update(fields)
    return record


def _insert(value: Any, type_number: int = 15) -> dict[str, Any]:
    """An INSERT of (id 1, v `value`)."""
    return _record(
        fields={"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": type_number}]},
        afterImages={"array": [{N + "Integer": {"precision": 11, "value": "1"}}, value]},
    )


# Each test's landed lines, by the test's name (`_land`): they land together, a file each, and
# are staged in one run (`staged_landings`), planned once rather than once per test.
LANDINGS: dict[str, list[str | None]] = {}
Staged = dict[str, list[dict[str, Any]]]


def _land(name: str, payloads: list[str | None]) -> str:
    """Lands a test's records as the lines of a file named `name`."""
    assert name not in LANDINGS, f"two tests land records as {name}: each would read the other's rows"
    LANDINGS[name] = payloads
    return name


@pytest.fixture(scope="module")
def staged_landings(spark: SparkSession, compiled: dict[str, str]) -> Staged:
    """Each test's staged messages, by the name it landed its records under."""
    landed = landed_file_lines(
        spark,
        [
            (name, number, payload, None)
            for name, payloads in LANDINGS.items()
            for number, payload in enumerate(payloads, start=1)
        ],
    )
    relations = {
        "cdc_landing.dts_avro": landed,
        "cdc.base_dts_avro__container_records": spark.createDataFrame([], CONTAINER_RECORDS),
        "cdc.dts_mysql_data_types": seed(spark, "dts_mysql_data_types"),
    }
    by_name: Staged = defaultdict(list)
    for row in staged(run_compiled(spark, compiled["stg_dts_avro__messages"], relations)):
        by_name[row["file_path"]].append(row)
    return by_name


def _bytes(text: str) -> str:
    """UTF-8 text as Avro's JSON encoding of its bytes."""
    return text.encode("utf-8").decode("latin-1")


def _datetime(**parts: int | None) -> dict[str, Any]:
    names = ("year", "month", "day", "hour", "minute", "second", "millis")
    return {name: None if parts.get(name) is None else {"int": parts[name]} for name in names}


WKB_POINT = "\x01\x01\x00\x00\x00" + "\x00" * 16
VALUES = [
    ({N + "Integer": {"precision": 20, "value": "-9223372036854775808"}}, "-9223372036854775808"),
    ({N + "Decimal": {"value": "10.50", "precision": 12, "scale": 2}}, "10.50"),
    ({N + "Decimal": {"value": "-0.05", "precision": 12, "scale": 2}}, "-0.05"),
    ({N + "Float": {"value": 0.25, "precision": 22, "scale": 0}}, "0.25"),
    ({N + "Character": {"charset": "utf8mb4", "value": _bytes('Zoë "q" 中文\n')}}, 'Zoë "q" 中文\n'),
    ({N + "Character": {"charset": "utf8", "value": ""}}, ""),
    ({N + "Character": {"charset": "latin1", "value": "caf\u00e9"}}, "caf\u00e9"),
    ({N + "Character": {"charset": "ascii", "value": "plain"}}, "plain"),
    (
        {N + "DateTime": _datetime(year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=123400)},
        "2024-01-02 03:04:05.1234",
    ),
    (
        {N + "DateTime": _datetime(year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=0)},
        "2024-01-02 03:04:05",
    ),
    (
        {N + "DateTime": _datetime(year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=7)},
        "2024-01-02 03:04:05.000007",
    ),
    ({N + "DateTime": _datetime(year=990, month=7, day=15)}, "0990-07-15"),
    ({N + "DateTime": _datetime(hour=23, minute=59, second=58)}, "23:59:58"),
    ({N + "DateTime": _datetime(year=2021)}, "2021"),
    ({N + "Timestamp": {"timestamp": 1704164645, "millis": 500000}}, "2024-01-02 03:04:05.5"),
    (
        {
            N + "TimestampWithTimeZone": {
                "value": _datetime(year=2024, month=1, day=2, hour=3, minute=4, second=5),
                "timezone": "+08:00",
            }
        },
        "2024-01-02 03:04:05 +08:00",
    ),
    ({N + "BinaryGeometry": {"type": "POINT", "value": WKB_POINT}}, WKB_POINT),
    (
        {N + "BinaryGeometry": {"type": "POINT", "value": "\x00\x00\x00\x00" + WKB_POINT}},
        "\x00\x00\x00\x00" + WKB_POINT,
    ),
    ({N + "TextGeometry": {"type": "POINT", "value": "POINT(0 1)"}}, "POINT(0 1)"),
    ({N + "BinaryObject": {"type": "BLOB", "value": "\x00\xff\x10"}}, "\x00\xff\x10"),
    ({N + "TextObject": {"type": "JSON", "value": '{"a": [1, 2]}'}}, '{"a": [1, 2]}'),
    ({N + "EmptyObject": "NULL"}, None),
    (None, None),
    # The namespace is not checked: a branch is matched by its name's last segment.
    ({"Integer": {"precision": 11, "value": "7"}}, "7"),
]


EVERY_BRANCH = _land("every_branch", [json.dumps(_insert(value)) for value, _ in VALUES])


def test_every_union_branch_decodes_to_its_canonical_text(staged_landings: Staged) -> None:
    rows = staged_landings[EVERY_BRANCH]
    got = [(row["disposition"], row["disposition_reason"], row["after_image"]) for row in rows]
    assert got == [("row_change", None, {"id": "1", "v": text}) for _, text in VALUES]


EMPTY_OBJECT_NONE = _land("empty_object_none", [json.dumps(_insert({N + "EmptyObject": "NONE"}))])


def test_empty_object_none_leaves_the_column_out_of_the_image(staged_landings: Staged) -> None:
    (row,) = staged_landings[EMPTY_OBJECT_NONE]
    assert row["after_image"] == {"id": "1"}
    assert row["column_types"] == {"id": "int", "v": "varchar"}


TYPE_NUMBERS = _land(
    "type_numbers",
    [
        json.dumps(
            _record(
                fields={
                    "array": [
                        {"name": name, "dataTypeNumber": number}
                        for name, number in zip(("id", "name", "price", "odd"), (3, 15, 246, 999))
                    ]
                },
                afterImages={"array": [{N + "Integer": {"precision": 11, "value": str(n)}} for n in range(4)]},
            )
        )
    ],
)


def test_column_type_numbers_are_named_by_the_seed(staged_landings: Staged) -> None:
    """MySQL's column type numbers (`dataTypeNumber`) named as seed dts_mysql_data_types names
    them; a number it lacks keeps its text."""
    (row,) = staged_landings[TYPE_NUMBERS]
    assert row["column_types"] == {"id": "int", "name": "varchar", "price": "decimal", "odd": "999"}


BAD_VALUES = [
    ({N + "Money": {"value": "1"}}, "unknown_value_type"),
    ({N + "Integer": {"precision": 11, "value": "12x"}}, "invalid_value"),
    ({N + "Integer": {"precision": 11}}, "invalid_value"),
    ({N + "Decimal": {"value": "1e5", "precision": 12, "scale": 2}}, "invalid_value"),
    ({N + "Float": {"value": "abc", "precision": 1, "scale": 0}}, "invalid_value"),
    ({N + "Character": {"charset": "gbk", "value": "abc"}}, "unsupported_charset"),
    ({N + "Character": {"value": "abc"}}, "unsupported_charset"),
    ({N + "Character": {"charset": "utf8mb4", "value": "\xff\xfe"}}, "invalid_character_value"),
    ({N + "Character": {"charset": "ascii", "value": "caf\xe9"}}, "invalid_character_value"),
    ({N + "Character": {"charset": "utf8mb4", "value": "中"}}, "invalid_value"),
    ({N + "BinaryGeometry": {"type": "POINT", "value": "\x07\x07"}}, "invalid_geometry"),
    ({N + "BinaryGeometry": {"type": "POINT", "value": "\x01\x09\x00\x00\x00"}}, "invalid_geometry"),
    ({N + "BinaryObject": {"type": "BLOB", "value": "中"}}, "invalid_value"),
    ({N + "DateTime": _datetime(year=2024, month=13, day=1)}, "invalid_value"),
    (
        {N + "DateTime": _datetime(year=2024, month=1, day=1, hour=1, minute=2, second=3, millis=1_000_000)},
        "invalid_value",
    ),
    ({N + "DateTime": _datetime()}, "invalid_value"),
    ({N + "Timestamp": {"timestamp": 10**15, "millis": 0}}, "invalid_value"),
    ({N + "TimestampWithTimeZone": {"value": _datetime(year=2024, month=1, day=1)}}, "invalid_value"),
    ({N + "TextObject": {"type": "JSON"}}, "invalid_value"),
    ({N + "EmptyObject": "MAYBE"}, "invalid_value"),
    ({N + "Integer": {"precision": 11, "value": "1"}, N + "Decimal": {"value": "1"}}, "invalid_value"),
]


BAD_VALUE_RECORDS = _land("bad_values", [json.dumps(_insert(value)) for value, _ in BAD_VALUES])


def test_bad_values_reject_the_message_with_a_reason_and_no_image(staged_landings: Staged) -> None:
    rows = staged_landings[BAD_VALUE_RECORDS]
    got = [(row["disposition"], row["disposition_reason"], row["after_image"]) for row in rows]
    assert got == [("rejected", reason, None) for _, reason in BAD_VALUES]


ID_AND_V = {"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 15}]}
ONE_AND_NULL = {"array": [{N + "Integer": {"precision": 11, "value": "1"}}, None]}
ONE_AND_X = {
    "array": [{N + "Integer": {"precision": 11, "value": "1"}}, {N + "Character": {"charset": "utf8", "value": "x"}}]
}
OTHER_RECORDS = _land(
    "other_records",
    [
        json.dumps(record)
        for record in [
            _record("UPDATE", fields=ID_AND_V, beforeImages=ONE_AND_NULL, afterImages=ONE_AND_X),
            # A DELETE's after image (and an INSERT's before image) is not read even where sent.
            _record("DELETE", fields=ID_AND_V, beforeImages=ONE_AND_X, afterImages={"array": [{N + "Bogus": {}}]}),
            _record("DDL", "shop", afterImages={"string": "CREATE DATABASE `shop`"}, tags={}),
            _record("DDL", "shop.t", afterImages={"string": "ALTER TABLE `t` ADD `w` int"}, processTimestamps=None),
            _record("BEGIN", None),
            _record("COMMIT", None),
            _record("HEARTBEAT", None),
        ]
    ],
)


def test_update_delete_ddl_and_control_records(staged_landings: Staged) -> None:
    rows = staged_landings[OTHER_RECORDS]
    keep = (
        "disposition",
        "disposition_reason",
        "database_name",
        "table_name",
        "sql_text",
        "before_image",
        "after_image",
        "key_columns",
        "emitted_at",
    )
    assert [{name: row[name] for name in keep} for row in rows] == [
        {
            "disposition": "row_change",
            "disposition_reason": None,
            "database_name": "shop",
            "table_name": "t",
            "sql_text": None,
            "before_image": {"id": "1", "v": None},
            "after_image": {"id": "1", "v": "x"},
            "key_columns": ["id"],
            "emitted_at": datetime(2024, 1, 2, 3, 4, 5, 250000),
        },
        {
            "disposition": "row_change",
            "disposition_reason": None,
            "database_name": "shop",
            "table_name": "t",
            "sql_text": None,
            "before_image": {"id": "1", "v": "x"},
            "after_image": None,
            "key_columns": ["id"],
            "emitted_at": datetime(2024, 1, 2, 3, 4, 5, 250000),
        },
        {
            "disposition": "schema_change",
            "disposition_reason": None,
            "database_name": "shop",
            "table_name": None,
            "sql_text": "CREATE DATABASE `shop`",
            "before_image": None,
            "after_image": None,
            "key_columns": None,
            "emitted_at": datetime(2024, 1, 2, 3, 4, 5, 250000),
        },
        {
            "disposition": "schema_change",
            "disposition_reason": None,
            "database_name": "shop",
            "table_name": "t",
            "sql_text": "ALTER TABLE `t` ADD `w` int",
            "before_image": None,
            "after_image": None,
            "key_columns": ["id"],
            "emitted_at": None,
        },
        *[
            {
                "disposition": "skipped",
                "disposition_reason": "control_event",
                "database_name": None,
                "table_name": None,
                "sql_text": None,
                "before_image": None,
                "after_image": None,
                "key_columns": ["id"],
                "emitted_at": datetime(2024, 1, 2, 3, 4, 5, 250000),
            }
        ]
        * 3,
    ]
    assert {(row["event_at"], row["source_position"], row["message_id"]) for row in rows} == {
        (datetime(2024, 1, 2, 3, 4, 5), "mysql-bin.000003:400", "42")
    }


ONE = {"array": [{N + "Integer": {"precision": 11, "value": "1"}}]}
HOSTILE_CASES = [
    (None, "invalid_avro_container"),
    ("", "empty_line"),
    ('{"operation":"INSERT",', "malformed_json"),
    ('["a"]', "not_a_json_object"),
    ('{"operation":"INSERT","objectName":"shop.t"}', "invalid_field_type"),
    ('{"id":1}', "missing_event_type"),
    (json.dumps(_record("UPSERT", fields=ID_AND_V, afterImages=ONE_AND_NULL)), "unknown_event_type"),
    (json.dumps(_record("INSERT", None, fields=ID_AND_V, afterImages=ONE_AND_NULL)), "missing_database"),
    (json.dumps(_record("INSERT", "nodot", fields=ID_AND_V, afterImages=ONE_AND_NULL)), "missing_table"),
    (json.dumps(_record("INSERT", afterImages=ONE_AND_NULL)), "missing_columns"),
    (
        json.dumps(_record("INSERT", fields={"array": [{"name": "", "dataTypeNumber": 3}]}, afterImages=ONE)),
        "empty_column_name",
    ),
    (
        json.dumps(
            _record("INSERT", fields={"array": [{"name": "id", "dataTypeNumber": 3}] * 2}, afterImages=ONE_AND_NULL)
        ),
        "duplicate_column",
    ),
    (json.dumps(_record("INSERT", fields=ID_AND_V)), "missing_row_image"),
    (json.dumps(_record("DELETE", fields=ID_AND_V, afterImages=ONE_AND_NULL)), "missing_row_image"),
    (json.dumps(_record("UPDATE", fields=ID_AND_V, afterImages=ONE_AND_NULL)), "missing_old_image"),
    (json.dumps(_record("INSERT", fields=ID_AND_V, afterImages=ONE)), "invalid_row_image"),
    (json.dumps(_record("UPDATE", fields=ID_AND_V, beforeImages=ONE, afterImages=ONE_AND_NULL)), "invalid_row_image"),
]
HOSTILE = _land("hostile", [payload for payload, _ in HOSTILE_CASES])


def test_hostile_records_are_rejected_with_a_reason(staged_landings: Staged) -> None:
    assert [(row["disposition"], row["disposition_reason"]) for row in staged_landings[HOSTILE]] == [
        ("rejected", reason) for _, reason in HOSTILE_CASES
    ]


# ------------------------------------------------------------------ JSON encoding <-> binary


def test_json_datums_keep_same_shaped_branches_apart_through_a_binary_container() -> None:
    record = _record(
        fields={"array": [{"name": "g", "dataTypeNumber": 255}, {"name": "o", "dataTypeNumber": 252}]},
        afterImages={
            "array": [
                {N + "BinaryObject": {"type": "BLOB", "value": "\x00\xff"}},
                {N + "BinaryGeometry": {"type": "POINT", "value": WKB_POINT}},
                {N + "TextGeometry": {"type": "POINT", "value": "POINT(0 1)"}},
                {N + "EmptyObject": "NONE"},
                None,
            ]
        },
    )
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(SCHEMA), [JsonDatums(SCHEMA)(record)])
    ((number, payload),) = container_records(out.getvalue(), SCHEMA)
    assert number == 1 and json.loads(payload or "") == record


def test_json_datums_reject_a_branch_the_union_lacks() -> None:
    with pytest.raises(ValueError, match="no union branch"):
        JsonDatums(SCHEMA)(_insert({N + "Money": {"value": "1"}}))


# ------------------------------------------------------------------------ generator encoder


def test_encoder_lines_are_valid_avro_json_for_the_stream() -> None:
    lines = [line for statement in logical_stream(5, 200) for line in dts_avro.encode(statement)]
    assert len(lines) > 200
    records = list(fastavro.json_reader(io.StringIO("\n".join(lines)), SCHEMA))
    assert {record["operation"] for record in records} == {"INSERT", "UPDATE", "DELETE", "DDL"}


def test_encoder_values_by_column_type() -> None:
    def value(kind: str, python_value: Any, **type_args: Any) -> Any:
        return dts_avro.value_json(python_value, Column("c", ColumnType(kind, **type_args)), False)  # type: ignore[arg-type]

    assert value("int", 5) == {N + "Integer": {"precision": 11, "value": "5"}}
    assert value("decimal", Decimal("10.50"), precision=12, scale=2) == {
        N + "Decimal": {"value": "10.50", "precision": 12, "scale": 2}
    }
    assert value("varchar", "é", length=4) == {N + "Character": {"charset": "utf8mb4", "value": "\xc3\xa9"}}
    assert value("datetime", datetime(2024, 1, 2, 3, 4, 5, 120000), fsp=2) == {
        N + "DateTime": _datetime(year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=120000)
    }
    assert value("int", None) is None
    assert dts_avro.value_json(None, Column("c", ColumnType("int")), True) == {N + "EmptyObject": "NULL"}


def test_binary_encoding_lands_the_same_records_as_the_json_lines(tmp_path: Path) -> None:
    json_counts = generate(tmp_path / "json", 120, 3, ["dts_avro"])
    binary_counts = generate(tmp_path / "binary", 120, 3, ["dts_avro"], max_file_bytes=20_000, avro_encoding="binary")
    lines = [json.loads(line) for path in json_counts["dts_avro"].files for line in path.read_text().splitlines()]
    binary_files = binary_counts["dts_avro"].files
    assert len(binary_files) > 1 and all(path.suffix == ".avro" for path in binary_files)
    records = [
        json.loads(payload or "")
        for path in binary_files
        for _, payload in container_records(path.read_bytes(), SCHEMA)
    ]
    assert records == lines
    assert binary_counts["dts_avro"].lines == json_counts["dts_avro"].lines == len(lines)
