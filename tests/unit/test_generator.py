"""The CDC generator (tools/src/cdc_tools/generator) without dbt: exact encodings of hand-written
statements in every format, Kafka Connect decimals, determinism, file rolling, the CLI, and a
decode of every format's lines back to the expected row changes."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from dataclasses import replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import fastavro
import pytest

from cdc_tools.generator import logical_stream
from cdc_tools.generator.expected import expected_row_changes, expected_schema_changes
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.formats.debezium_json import connect_decimal, decode_connect_decimal
from cdc_tools.generator.model import (
    BinlogPosition,
    Column,
    ColumnType,
    RowChange,
    SchemaChange,
    Statement,
    Table,
    value_text,
)
from cdc_tools.generator.stream import (
    LOCK_WAIT_MS,
    RESTART_DELAY_MS,
    deliveries,
    final_tables,
    producer_retried,
)
from cdc_tools.generator.writer import REDELIVERED_CHANGES_FILE, RollingWriter, generate

# ------------------------------------------------------------ hand-written statements

T = Table(
    "db",
    "t",
    (
        Column("id", ColumnType("int"), nullable=False),
        Column("price", ColumnType("decimal", precision=10, scale=2)),
        Column("at", ColumnType("datetime", fsp=6), nullable=False),
        Column("d", ColumnType("date")),
        Column("name", ColumnType("varchar", length=20)),
    ),
    ("id",),
)
A = {
    "id": 1,
    "price": Decimal("-12.34"),
    "at": datetime(2024, 1, 2, 3, 4, 5, 123457),
    "d": date(2024, 2, 29),
    "name": 'Zoë "q"',
}
B = {"id": 2, "price": None, "at": datetime(1970, 1, 1, 0, 0, 1, 1), "d": None, "name": ""}
A2 = {**A, "name": None}  # to NULL
B2 = {**B, "price": Decimal("1.05")}  # from NULL
POS = BinlogPosition("mysql-bin.000003", 154)

INSERT = Statement(3, 1700000000000, 1700000000100, POS, T, (RowChange("INSERT", None, A),))
UPDATE = Statement(
    4,
    1700000001000,
    1700000001200,
    BinlogPosition("mysql-bin.000003", 400),
    T,
    (RowChange("UPDATE", A, A2), RowChange("UPDATE", B, B2)),
)
DELETE = Statement(
    5, 1700000002000, 1700000002300, BinlogPosition("mysql-bin.000003", 700), T, (RowChange("DELETE", B2, None),)
)
ALTER = Statement(
    6,
    1700000003000,
    1700000003400,
    BinlogPosition("mysql-bin.000003", 900),
    T,
    schema_change=SchemaChange("ALTER", "db", "t", "ALTER TABLE `t` ADD COLUMN `d` date", T),
)

A_TEXT = {"id": "1", "price": "-12.34", "at": "2024-01-02 03:04:05.123457", "d": "2024-02-29", "name": 'Zoë "q"'}
B_TEXT = {"id": "2", "price": None, "at": "1970-01-01 00:00:01.000001", "d": None, "name": ""}
A2_TEXT = {**A_TEXT, "name": None}
B2_TEXT = {**B_TEXT, "price": "1.05"}
T_MYSQL_TYPES = {"id": "int(11)", "price": "decimal(10,2)", "at": "datetime(6)", "d": "date", "name": "varchar(20)"}
T_JDBC_TYPES = {"id": 4, "price": 3, "at": 93, "d": 91, "name": 12}


def encode(format_name: str, statement: Statement) -> list:
    lines = FORMATS[format_name].encode(statement)
    assert all("\n" not in line for line in lines)
    return [json.loads(line) for line in lines]


def test_canonical_value_text() -> None:
    assert value_text(Decimal("10.50"), ColumnType("decimal", precision=5, scale=2)) == "10.50"
    assert value_text(datetime(2024, 1, 1, 0, 0, 0, 120000), ColumnType("datetime", fsp=3)) == "2024-01-01 00:00:00.120"
    assert value_text(datetime(2024, 1, 1, 0, 0, 0), ColumnType("datetime")) == "2024-01-01 00:00:00"
    assert value_text(date(999, 1, 2), ColumnType("date")) == "0999-01-02"
    assert value_text(None, ColumnType("int")) is None
    assert value_text("", ColumnType("varchar", length=3)) == ""


# ---------------------------------------------------------------------------- canal_json


def _canal(data, old, type_, seq, es, ts, pk_count) -> dict:
    return {
        "data": data,
        "database": "db",
        "es": es,
        "id": seq + 1,
        "isDdl": False,
        "mysqlType": T_MYSQL_TYPES,
        "old": old,
        "pkNames": ["id"] * pk_count,
        "sql": "",
        "sqlType": T_JDBC_TYPES,
        "table": "t",
        "ts": ts,
        "type": type_,
    }


def test_canal_json_encodings() -> None:
    # seq 3: a bare message.
    assert encode("canal_json", INSERT) == [_canal([A_TEXT], None, "INSERT", 3, 1700000000000, 1700000000100, 1)]
    # seq 4, two rows: one line holding a batch of two one-row messages; `old` holds only the
    # changed column, a null value meaning "was NULL".
    assert encode("canal_json", UPDATE) == [
        [
            _canal([A2_TEXT], [{"name": 'Zoë "q"'}], "UPDATE", 4, 1700000001000, 1700000001200, 1),
            _canal([B2_TEXT], [{"price": None}], "UPDATE", 4, 1700000001000, 1700000001200, 1),
        ]
    ]
    # seq 5: the deleted row in `data`.
    assert encode("canal_json", DELETE) == [_canal([B2_TEXT], None, "DELETE", 5, 1700000002000, 1700000002300, 1)]
    # seq 6, DDL: a one-message array as 000 prints them.
    assert encode("canal_json", ALTER) == [
        [
            {
                "data": None,
                "database": "db",
                "es": 1700000003000,
                "id": 7,
                "isDdl": True,
                "mysqlType": None,
                "old": None,
                "pkNames": None,
                "sql": "ALTER TABLE `t` ADD COLUMN `d` date",
                "sqlType": None,
                "table": "t",
                "ts": 1700000003400,
                "type": "ALTER",
            }
        ]
    ]


def test_canal_json_multi_row_message_repeats_pk_names_per_row() -> None:
    statement = Statement(7, 1, 2, POS, T, (RowChange("INSERT", None, A), RowChange("INSERT", None, B)))
    [message] = encode("canal_json", statement)  # seq 7 % 4 == 3: one message, both rows
    assert message["pkNames"] == ["id", "id"]
    assert message["data"] == [A_TEXT, B_TEXT]


def test_canal_json_ticdc_flavour() -> None:
    # seq 8 (% 6 == 2): TiCDC's Canal-JSON, a message a row, `old` the whole old row, id 0, the
    # TSO `es` << 18 | seq in `_tidb.commitTs`.
    tso = 1700000001000 << 18 | 8
    ticdc = {
        "id": 0,
        "database": "db",
        "table": "t",
        "pkNames": ["id"],
        "isDdl": False,
        "type": "UPDATE",
        "es": 1700000001000,
        "ts": 1700000001200,
        "sql": "",
        "sqlType": {"id": 4, "price": 3, "at": 93, "d": 91, "name": 12},
        "mysqlType": {"id": "int", "price": "decimal", "at": "datetime", "d": "date", "name": "varchar"},
        "_tidb": {"commitTs": tso},
    }
    assert encode("canal_json", replace(UPDATE, seq=8)) == [
        {**ticdc, "data": [A2_TEXT], "old": [A_TEXT]},
        {**ticdc, "data": [B2_TEXT], "old": [B_TEXT]},
    ]
    # A redelivery keeps the TSO; the emit time is new.
    resent = encode("canal_json", replace(UPDATE, seq=8, emitted_ms=1700000009999, delivery=1))
    assert [m["_tidb"] for m in resent] == [{"commitTs": tso}] * 2 and resent[0]["ts"] == 1700000009999
    # A DDL, then a WATERMARK event at its TSO.
    ddl, watermark = encode("canal_json", replace(ALTER, seq=14))
    assert (ddl["id"], ddl["type"], ddl["_tidb"]) == (0, "ALTER", {"commitTs": 1700000003000 << 18 | 14})
    assert (watermark["type"], watermark["database"], watermark["_tidb"]) == (
        "TIDB_WATERMARK",
        "",
        {"watermarkTs": 1700000003000 << 18 | 14},
    )


# ----------------------------------------------------------------------- cloudcanal_json


def _cloudcanal(action, before, data, seq, exec_ts, send_ts) -> dict:
    return {
        "action": action,
        "before": before,
        "bid": seq,
        "data": data,
        "db": "db",
        "dbValType": T_MYSQL_TYPES,
        "isDdl": False,
        "entryType": "ROWDATA",
        "execTs": exec_ts,
        "jdbcType": T_JDBC_TYPES,
        "pks": ["id"],
        "schema": "db",
        "sendTs": send_ts,
        "sql": "",
        "table": "t",
    }


def test_cloudcanal_json_encodings() -> None:
    assert encode("cloudcanal_json", INSERT) == [_cloudcanal("INSERT", [], [A_TEXT], 3, 1700000000000, 1700000000100)]
    assert encode("cloudcanal_json", UPDATE) == [
        _cloudcanal("UPDATE", [A_TEXT, B_TEXT], [A2_TEXT, B2_TEXT], 4, 1700000001000, 1700000001200)
    ]
    assert encode("cloudcanal_json", DELETE) == [_cloudcanal("DELETE", [], [B2_TEXT], 5, 1700000002000, 1700000002300)]
    columns = [
        {"jdbcType": 4, "name": "id", "position": 0, "typeExpression": "int(11)", "typeName": "INT"},
        {"jdbcType": 3, "name": "price", "position": 1, "typeExpression": "decimal(10,2)", "typeName": "DECIMAL"},
        {"jdbcType": 93, "name": "at", "position": 2, "typeExpression": "datetime(6)", "typeName": "DATETIME"},
        {"jdbcType": 91, "name": "d", "position": 3, "typeExpression": "date", "typeName": "DATE"},
        {"jdbcType": 12, "name": "name", "position": 4, "typeExpression": "varchar(20)", "typeName": "VARCHAR"},
    ]
    assert encode("cloudcanal_json", ALTER) == [
        {
            "action": "ALTER",
            "before": [],
            "bid": 6,
            "data": [],
            "db": "db",
            "dbValType": T_MYSQL_TYPES,
            "isDdl": True,
            "entryType": "ROWDATA",
            "execTs": 1700000003000,
            "jdbcType": T_JDBC_TYPES,
            "pks": [],
            "schema": "db",
            "sendTs": 1700000003400,
            "sql": "ALTER TABLE `t` ADD COLUMN `d` date",
            "table": "t",
            "tableChanges": {"table": {"columns": columns, "primaryKeyColumnNames": ["id"]}, "type": "ALTER"},
        }
    ]
    drop_index = Statement(
        8, 1, 2, POS, T, schema_change=SchemaChange("DROP_INDEX", "db", "t", "DROP INDEX `ix` ON `t`", T)
    )
    [message] = encode("cloudcanal_json", drop_index)
    assert message["action"] == "DINDEX"  # canal's EventType name
    assert message["tableChanges"]["type"] == "ALTER"


# ------------------------------------------------------------------------- debezium_json


def _source(ts_ms, pos, row, table="t") -> dict:
    return {
        "version": "2.7.3.Final",
        "connector": "mysql",
        "name": "server1",
        "ts_ms": ts_ms,
        "snapshot": "false",
        "db": "db",
        "sequence": None,
        "table": table,
        "server_id": 223344,
        "gtid": None,
        "file": "mysql-bin.000003",
        "pos": pos,
        "row": row,
        "thread": 7,
        "query": None,
    }


VALUE_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {
        "type": "bytes",
        "name": "org.apache.kafka.connect.data.Decimal",
        "version": 1,
        "parameters": {"scale": "2", "connect.decimal.precision": "10"},
        "optional": True,
        "field": "price",
    },
    {"type": "int64", "name": "io.debezium.time.MicroTimestamp", "version": 1, "optional": False, "field": "at"},
    {"type": "int32", "name": "io.debezium.time.Date", "version": 1, "optional": True, "field": "d"},
    {"type": "string", "optional": True, "field": "name"},
]


def test_debezium_json_bare_payload_carries_text_for_decimals_and_times() -> None:
    # seq 3 (odd): no schema; ints stay numbers, the rest is text.
    assert encode("debezium_json", INSERT) == [
        {
            "before": None,
            "after": {**A_TEXT, "id": 1},
            "source": _source(1700000000000, 154, 0),
            "op": "c",
            "ts_ms": 1700000000100,
            "transaction": None,
        }
    ]
    assert encode("debezium_json", DELETE) == [
        {
            "before": {**B2_TEXT, "id": 2},
            "after": None,
            "source": _source(1700000002000, 700, 0),
            "op": "d",
            "ts_ms": 1700000002300,
            "transaction": None,
        }
    ]


def test_debezium_json_with_schema_one_message_per_row_in_connect_types() -> None:
    # seq 4 (even): schema + payload. -12.34 is unscaled -1234 = 0xFB2E; 1.05 is 105 = 0x69.
    # 2024-01-02 03:04:05.123457 is 1704164645123457 µs; 2024-02-29 is day 19782.
    a2 = {"id": 1, "price": "+y4=", "at": 1704164645123457, "d": 19782, "name": None}
    a = {**a2, "name": 'Zoë "q"'}
    b = {"id": 2, "price": None, "at": 1000001, "d": None, "name": ""}
    b2 = {**b, "price": "aQ=="}
    lines = encode("debezium_json", UPDATE)
    assert [line["payload"] for line in lines] == [
        {
            "before": a,
            "after": a2,
            "source": _source(1700000001000, 400, 0),
            "op": "u",
            "ts_ms": 1700000001200,
            "transaction": None,
        },
        {
            "before": b,
            "after": b2,
            "source": _source(1700000001000, 400, 1),
            "op": "u",
            "ts_ms": 1700000001200,
            "transaction": None,
        },
    ]
    for line in lines:
        schema = line["schema"]
        assert schema["name"] == "server1.db.t.Envelope"
        fields = {field["field"]: field for field in schema["fields"]}
        assert list(fields) == ["before", "after", "source", "op", "ts_ms", "transaction"]
        assert fields["before"]["fields"] == fields["after"]["fields"] == VALUE_FIELDS
        assert fields["after"]["name"] == "server1.db.t.Value"


def test_debezium_json_schema_change_event() -> None:
    [line] = encode("debezium_json", ALTER)  # seq 6: with schema
    assert line["schema"]["name"] == "io.debezium.connector.mysql.SchemaChangeValue"
    columns = [
        {
            "name": "id",
            "jdbcType": 4,
            "typeName": "INT",
            "typeExpression": "int(11)",
            "length": None,
            "scale": None,
            "position": 1,
            "optional": False,
        },
        {
            "name": "price",
            "jdbcType": 3,
            "typeName": "DECIMAL",
            "typeExpression": "decimal(10,2)",
            "length": 10,
            "scale": 2,
            "position": 2,
            "optional": True,
        },
        {
            "name": "at",
            "jdbcType": 93,
            "typeName": "DATETIME",
            "typeExpression": "datetime(6)",
            "length": None,
            "scale": None,
            "position": 3,
            "optional": False,
        },
        {
            "name": "d",
            "jdbcType": 91,
            "typeName": "DATE",
            "typeExpression": "date",
            "length": None,
            "scale": None,
            "position": 4,
            "optional": True,
        },
        {
            "name": "name",
            "jdbcType": 12,
            "typeName": "VARCHAR",
            "typeExpression": "varchar(20)",
            "length": 20,
            "scale": None,
            "position": 5,
            "optional": True,
        },
    ]
    common = {"nativeType": None, "charsetName": None, "autoIncremented": False, "generated": False}
    assert line["payload"] == {
        "source": _source(1700000003000, 900, 0),
        "ts_ms": 1700000003400,
        "databaseName": "db",
        "schemaName": None,
        "ddl": "ALTER TABLE `t` ADD COLUMN `d` date",
        "tableChanges": [
            {
                "type": "ALTER",
                "id": '"db"."t"',
                "table": {
                    "defaultCharsetName": "utf8mb4",
                    "primaryKeyColumnNames": ["id"],
                    "columns": [{**column, **common} for column in columns],
                },
            }
        ],
    }
    query = Statement(7, 1, 2, POS, schema_change=SchemaChange("QUERY", "db", None, "CREATE DATABASE db"))
    [bare] = encode("debezium_json", query)  # seq 7: bare payload, no table change
    assert bare["tableChanges"] == [] and bare["source"]["table"] is None and "schema" not in bare


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0.00", "AA=="),
        ("1.27", "fw=="),
        ("1.28", "AIA="),
        ("-1.28", "gA=="),
        ("-1.29", "/38="),
        ("-12.34", "+y4="),
        ("2.55", "AP8="),
        ("-327.68", "gAA="),
        ("2.5", "APo="),
    ],
)
def test_connect_decimal_is_minimal_big_endian_twos_complement(value: str, expected: str) -> None:
    assert connect_decimal(Decimal(value), 2) == expected
    assert decode_connect_decimal(expected, 2) == Decimal(value)


@pytest.mark.parametrize(
    "value",
    [
        "0",
        "-0.000001",
        "123456789012.345679",
        "-123456789012.345679",
        "99999999999999999999.999999",
        "-99999999999999999999.999999",
        "-9223372036854775.808",
        "9223372036854775.807",
        "-1",
    ],
)
def test_connect_decimal_round_trips_keeping_the_scale(value: str) -> None:
    decimal = Decimal(value)
    scale = -decimal.as_tuple().exponent
    encoded = connect_decimal(decimal, scale)
    decoded = decode_connect_decimal(encoded, scale)
    assert decoded == decimal and str(decoded) == str(decimal)
    assert int.from_bytes(base64.b64decode(encoded), "big", signed=True) == int(decimal.scaleb(scale))


def test_connect_decimal_is_unscaled_at_the_column_scale_not_the_values() -> None:
    # 12345.11 in a decimal(10,3) column is 12345.110: unscaled 12345110, not 1234511.
    assert connect_decimal(Decimal("12345.11"), 3) == "ALxfFg=="
    assert str(decode_connect_decimal("ALxfFg==", 3)) == "12345.110"
    with pytest.raises(ValueError):
        connect_decimal(Decimal("0.001"), 2)


# ---------------------------------------------------------------------- kafka_river_json


def test_kafka_river_json_encodings() -> None:
    types = T_MYSQL_TYPES
    assert encode("kafka_river_json", INSERT) == [
        {
            "binlog": "154@mysql-bin.000003",
            "time": 1700000000000,
            "canalTime": 1700000000100,
            "db": "db",
            "table": "t",
            "event": "i",
            "columns": [{"n": n, "t": types[n], "v": v, "null": False} for n, v in A_TEXT.items()],
            "keys": ["id"],
        }
    ]
    # GSON leaves out nulls: no `v` for a NULL, no `origin_val` for an old NULL.
    assert [line["columns"] for line in encode("kafka_river_json", UPDATE)] == [
        [
            {"n": "id", "t": "int(11)", "v": "1", "null": False, "updated": False},
            {"n": "price", "t": "decimal(10,2)", "v": "-12.34", "null": False, "updated": False},
            {"n": "at", "t": "datetime(6)", "v": "2024-01-02 03:04:05.123457", "null": False, "updated": False},
            {"n": "d", "t": "date", "v": "2024-02-29", "null": False, "updated": False},
            {"n": "name", "t": "varchar(20)", "origin_val": 'Zoë "q"', "null": True, "updated": True},
        ],
        [
            {"n": "id", "t": "int(11)", "v": "2", "null": False, "updated": False},
            {"n": "price", "t": "decimal(10,2)", "v": "1.05", "null": False, "updated": True},
            {"n": "at", "t": "datetime(6)", "v": "1970-01-01 00:00:01.000001", "null": False, "updated": False},
            {"n": "d", "t": "date", "null": True, "updated": False},
            {"n": "name", "t": "varchar(20)", "v": "", "null": False, "updated": False},
        ],
    ]
    assert [line["binlog"] for line in encode("kafka_river_json", UPDATE)] == ["400@mysql-bin.000003"] * 2
    [delete] = encode("kafka_river_json", DELETE)
    assert delete["event"] == "d" and delete["columns"][3] == {"n": "d", "t": "date", "null": True}
    assert encode("kafka_river_json", ALTER) == []


# -------------------------------------------------------------------- debezium_flat_json


def _flat_metadata(op, ts_ms, emitted_ms, pos, row, deleted="false") -> dict:
    return {
        "__op": op,
        "__db": "db",
        "__table": "t",
        "__source_ts_ms": ts_ms,
        "__ts_ms": emitted_ms,
        "__source_file": "mysql-bin.000003",
        "__source_pos": pos,
        "__source_row": row,
        "__deleted": deleted,
    }


def test_debezium_flat_json_is_the_row_with_the_added_fields_and_no_old_row() -> None:
    # seq 3 (odd): bare; the row as debezium_json's `after` (ints as numbers, the rest as text).
    assert encode("debezium_flat_json", INSERT) == [
        {**A_TEXT, "id": 1, **_flat_metadata("c", 1700000000000, 1700000000100, 154, 0)}
    ]
    # seq 5: the delete rewritten, the deleted row and `__deleted` "true".
    assert encode("debezium_flat_json", DELETE) == [
        {**B2_TEXT, "id": 2, **_flat_metadata("d", 1700000002000, 1700000002300, 700, 0, "true")}
    ]
    assert encode("debezium_flat_json", ALTER) == []  # schema changes stay on their own topic


def test_debezium_flat_json_with_schema_names_the_row_and_added_fields() -> None:
    # seq 4 (even): schema + payload, the rows' new values in Connect types; no old values.
    a2 = {"id": 1, "price": "+y4=", "at": 1704164645123457, "d": 19782, "name": None}
    b2 = {"id": 2, "price": "aQ==", "at": 1000001, "d": None, "name": ""}
    lines = encode("debezium_flat_json", UPDATE)
    assert [line["payload"] for line in lines] == [
        {**a2, **_flat_metadata("u", 1700000001000, 1700000001200, 400, 0)},
        {**b2, **_flat_metadata("u", 1700000001000, 1700000001200, 400, 1)},
    ]
    for line in lines:
        schema = line["schema"]
        assert (schema["name"], schema["type"]) == ("server1.db.t.Value", "struct")
        assert schema["fields"][: len(VALUE_FIELDS)] == VALUE_FIELDS
        added = {field["field"]: field["type"] for field in schema["fields"][len(VALUE_FIELDS) :]}
        assert added == {
            "__op": "string",
            "__db": "string",
            "__table": "string",
            "__source_ts_ms": "int64",
            "__ts_ms": "int64",
            "__source_file": "string",
            "__source_pos": "int64",
            "__source_row": "int32",
            "__deleted": "string",
        }


# -------------------------------------------------------------------------- maxwell_json


def test_maxwell_json_encodings() -> None:
    # seq 3 (odd): no primary_key_columns; numbers as JSON numbers, the decimal with its scale.
    [insert] = FORMATS["maxwell_json"].encode(INSERT)
    assert insert == (
        '{"database":"db","table":"t","type":"insert","ts":1700000000,"xid":1003,"commit":true,'
        '"position":"mysql-bin.000003:154","data":{"id":1,"price":-12.34,"at":"2024-01-02 03:04:05.123457",'
        '"d":"2024-02-29","name":"Zoë \\"q\\""}}'
    )
    # seq 4 (even), two rows: `xoffset` 0, then the last row's `commit`; `old` the changed columns.
    first, second = encode("maxwell_json", UPDATE)
    assert (first["xoffset"], "commit" in first, second["commit"], "xoffset" in second) == (0, False, True, False)
    assert first["primary_key_columns"] == ["id"]
    assert (first["old"], second["old"]) == ({"name": 'Zoë "q"'}, {"price": None})
    assert second["data"] == {"id": 2, "price": 1.05, "at": "1970-01-01 00:00:01.000001", "d": None, "name": ""}
    [delete] = encode("maxwell_json", DELETE)
    assert (delete["type"], "old" in delete, delete["data"]["price"]) == ("delete", False, 1.05)
    # DDL: the table's definition after it, `ts` in milliseconds of whole seconds.
    assert encode("maxwell_json", ALTER) == [
        {
            "type": "table-alter",
            "database": "db",
            "table": "t",
            "def": {
                "database": "db",
                "charset": "utf8mb4",
                "table": "t",
                "columns": [{"type": c.type.kind, "name": c.name} for c in T.columns],
                "primary-key": ["id"],
            },
            "ts": 1700000003000,
            "sql": "ALTER TABLE `t` ADD COLUMN `d` date",
            "position": "mysql-bin.000003:900",
        }
    ]
    truncate = replace(ALTER, schema_change=SchemaChange("TRUNCATE", "db", "t", "TRUNCATE TABLE `t`"))
    assert encode("maxwell_json", truncate) == []  # Maxwell ignores TRUNCATE


# ------------------------------------------------------------------------------ ogg_json


def test_ogg_json_encodings() -> None:
    # seq 3 (odd): numbers as JSON numbers, current_ts ISO 8601; pos the binlog file's number and
    # the offset, ten digits each.
    [insert] = FORMATS["ogg_json"].encode(INSERT)
    assert insert == (
        '{"table":"db.t","op_type":"I","op_ts":"2023-11-14 22:13:20.000000",'
        '"current_ts":"2023-11-14T22:13:20.100000","pos":"00000000030000000154","primary_keys":["id"],'
        '"after":{"id":1,"price":-12.34,"at":"2024-01-02 03:04:05.123457","d":"2024-02-29","name":"Zoë \\"q\\""}}'
    )
    # seq 4 (even), two rows: every value a string, current_ts with a space, a pos per row; the
    # update's `before` is the whole old row.
    first, second = encode("ogg_json", UPDATE)
    assert [line["pos"] for line in (first, second)] == ["00000000030000000400", "00000000030000000401"]
    assert (first["op_type"], first["current_ts"]) == ("U", "2023-11-14 22:13:21.200000")
    assert (first["before"], first["after"]) == (A_TEXT, A2_TEXT)
    assert second["after"] == B2_TEXT
    # seq 9 (odd, a multiple of 3): the update's `before` holds the key and the changed columns only.
    compressed = replace(UPDATE, seq=9)
    assert [line["before"] for line in encode("ogg_json", compressed)] == [
        {"id": 1, "name": 'Zoë "q"'},
        {"id": 2, "price": None},
    ]
    [delete] = encode("ogg_json", DELETE)
    assert (delete["op_type"], "after" in delete, delete["before"]["price"]) == ("D", False, 1.05)
    # No DDL but TRUNCATE, which carries no statement.
    assert encode("ogg_json", ALTER) == []
    truncate = replace(ALTER, schema_change=SchemaChange("TRUNCATE", "db", "t", "TRUNCATE TABLE `t`"))
    assert encode("ogg_json", truncate) == [
        {
            "table": "db.t",
            "op_type": "T",
            "op_ts": "2023-11-14 22:13:23.000000",
            "current_ts": "2023-11-14 22:13:23.400000",
            "pos": "00000000030000000900",
        }
    ]
    expected = FORMATS["ogg_json"].expected(expected_schema_changes(truncate)[0])
    assert (expected["ddl_kind"], expected["sql"]) == ("TRUNCATE", None)


# -------------------------------------------------------------------------- aws_dms_json


def test_aws_dms_json_encodings() -> None:
    # seq 3 (odd): no stream-position; numbers as JSON numbers, the decimal with its scale;
    # times ISO-8601 with microseconds.
    [insert] = FORMATS["aws_dms_json"].encode(INSERT)
    assert insert == (
        '{"data":{"id":1,"price":-12.34,"at":"2024-01-02 03:04:05.123457","d":"2024-02-29","name":"Zoë \\"q\\""},'
        '"metadata":{"timestamp":"2023-11-14T22:13:20.100000Z","record-type":"data","operation":"insert",'
        '"partition-key-type":"schema-table","schema-name":"db","table-name":"t","transaction-id":1003,'
        '"transaction-record-id":1,"commit-timestamp":"2023-11-14T22:13:20.000000Z"}}'
    )
    # seq 4 (even), two rows: each its place in the transaction and its stream position, and
    # its before image (ColumnFilter all: every column).
    first, second = encode("aws_dms_json", UPDATE)
    assert [m["metadata"]["transaction-record-id"] for m in (first, second)] == [1, 2]
    assert [m["metadata"]["stream-position"] for m in (first, second)] == [
        "mysql-bin.000003:400:0",
        "mysql-bin.000003:400:1",
    ]
    assert (first["before-image"]["name"], first["data"]["name"]) == ('Zoë "q"', None)
    assert (second["before-image"]["price"], second["data"]["price"]) == (None, 1.05)
    [delete] = encode("aws_dms_json", DELETE)
    assert (delete["metadata"]["operation"], "before-image" in delete, delete["data"]["price"]) == (
        "delete",
        False,
        1.05,
    )
    # DDL: a control record with the table's definition after it, no statement, no commit time:
    # its `timestamp` the DDL's execution time, when DMS reads it.
    assert encode("aws_dms_json", ALTER) == [
        {
            "control": {
                "table-def": {
                    "columns": {
                        "id": {"type": "INT32", "nullable": False},
                        "price": {"type": "NUMERIC", "precision": 10, "scale": 2, "nullable": True},
                        "at": {"type": "DATETIME", "nullable": False},
                        "d": {"type": "DATE", "nullable": True},
                        "name": {"type": "STRING", "length": 20, "nullable": True},
                    },
                    "primary-key": ["id"],
                }
            },
            "metadata": {
                "timestamp": "2023-11-14T22:13:23.000000Z",
                "record-type": "control",
                "operation": "add-column",
                "partition-key-type": "task-id",
                "schema-name": "db",
                "table-name": "t",
            },
        }
    ]
    truncate = replace(ALTER, schema_change=SchemaChange("TRUNCATE", "db", "t", "TRUNCATE TABLE `t`"))
    [truncated] = encode("aws_dms_json", truncate)
    assert (truncated["control"], truncated["metadata"]["operation"]) == ({}, "truncate-table")
    index = replace(ALTER, schema_change=SchemaChange("CREATE_INDEX", "db", "t", "CREATE INDEX `i` ON `t` (`d`)", T))
    assert encode("aws_dms_json", index) == []  # DMS sends no index DDL
    # Its expected schema changes hold no statement, and their one time as the emit time.
    [change] = expected_schema_changes(ALTER)
    assert FORMATS["aws_dms_json"].expected(change) == {
        **change,
        "sql": None,
        "event_at_ms": None,
        "emitted_at_ms": 1700000003000,
    }


# ------------------------------------------------------------------ expected results


def test_expected_results_come_from_the_logical_statement() -> None:
    assert expected_row_changes(UPDATE) == [
        {
            "operation": "UPDATE",
            "database": "db",
            "table": "t",
            "primary_key": '{"id":"1"}',
            "before_image": A_TEXT,
            "after_image": A2_TEXT,
            "changed_columns": ["name"],
            "event_at_ms": 1700000001000,
            "emitted_at_ms": 1700000001200,
            "statement": 4,
        },
        {
            "operation": "UPDATE",
            "database": "db",
            "table": "t",
            "primary_key": '{"id":"2"}',
            "before_image": B_TEXT,
            "after_image": B2_TEXT,
            "changed_columns": ["price"],
            "event_at_ms": 1700000001000,
            "emitted_at_ms": 1700000001200,
            "statement": 4,
        },
    ]
    [delete] = expected_row_changes(DELETE)
    assert delete["after_image"] is None and delete["changed_columns"] == sorted(T.column_names)
    assert expected_schema_changes(ALTER) == [
        {
            "database": "db",
            "table": "t",
            "ddl_kind": "ALTER",
            "sql": "ALTER TABLE `t` ADD COLUMN `d` date",
            "event_at_ms": 1700000003000,
            "emitted_at_ms": 1700000003400,
            "statement": 6,
        }
    ]
    assert expected_row_changes(ALTER) == [] and expected_schema_changes(INSERT) == []


# ------------------------------------------------------------------- the logical stream


def _encoded(seed: int, statements: int) -> list[tuple[str, list[str]]]:
    return [
        (name, encoder.encode(statement))
        for statement in logical_stream(seed, statements)
        for name, encoder in FORMATS.items()
    ]


def test_stream_is_deterministic_by_seed() -> None:
    assert _encoded(11, 300) == _encoded(11, 300)
    assert _encoded(11, 300) != _encoded(12, 300)
    # The curated prefix's changes do not depend on the seed (only its clock does).
    prefix = [(s.changes, s.schema_change) for s in logical_stream(11, 32)]
    assert prefix == [(s.changes, s.schema_change) for s in logical_stream(12, 32)]


def test_curated_prefix_covers_every_edge_case() -> None:
    statements = list(logical_stream(0, 32))
    ddl = [s.schema_change.kind for s in statements if s.schema_change]
    assert set(ddl) == {"CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "CREATE_INDEX", "DROP_INDEX", "QUERY"}
    dml = [s for s in statements if s.changes]
    assert {s.operation for s in dml if len(s.changes) > 1} == {"INSERT", "UPDATE", "DELETE"}
    updates = [c for s in dml for c in s.changes if c.operation == "UPDATE"]
    assert any(len(c.changed_columns) == 1 for c in updates)
    assert any(c.before[n] is None and c.after[n] is not None for c in updates for n in c.changed_columns)
    assert any(c.before[n] is not None and c.after[n] is None for c in updates for n in c.changed_columns)
    texts = [v for s in dml for before, after in s.images for image in (before, after) if image for v in image.values()]
    assert None in texts and "" in texts
    assert any('"' in t and "'" in t and "\\" in t for t in texts if t)
    assert any(ord(ch) > 0xFFFF for t in texts if t for ch in t)  # beyond the BMP (emoji)
    assert any(t.startswith("-") and "." in t for t in texts if t)  # negative decimals
    assert any(len(s.table.key) == 2 for s in dml) and any(s.table.database == "crm" for s in dml)


def test_final_tables_follow_the_prefix_s_ddl() -> None:
    statements = list(logical_stream(0, 43))  # the whole curated prefix
    assert [s.schema_change.sql for s in statements[-4:] if s.schema_change] == [
        "ALTER TABLE `notes` RENAME COLUMN `body` TO `content`",
        "ALTER TABLE `orders` MODIFY COLUMN `qty` bigint(20) NOT NULL",
        "ALTER TABLE `customers` MODIFY COLUMN `balance` decimal(14,2) NOT NULL",
    ]
    tables = final_tables(0, 43)
    assert sorted(tables) == [("crm", "notes"), ("shop", "customers"), ("shop", "orders")]
    notes, (note,) = tables["crm", "notes"]
    assert notes.column_names == ("code", "content", "score", "updated_at")
    assert note == {
        "code": "N-1",
        "content": "after the rename",
        "score": Decimal("4.5"),
        "updated_at": datetime(2024, 1, 5, 1, 2, 3, 4),
    }
    customers, rows = tables["shop", "customers"]
    assert customers.column("balance").type.mysql_type == "decimal(14,2)" and "tier" not in customers.column_names
    assert len(rows) == 6 and all(set(row) == set(customers.column_names) for row in rows)
    assert tables["shop", "orders"][0].column("qty").type.kind == "bigint"


def test_datetime_fractions_never_end_in_zero_so_mysql_and_spark_text_agree() -> None:
    for statement in logical_stream(5, 3000):
        for change in statement.changes:
            for row in (change.before, change.after):
                for column in statement.table.columns if row else ():
                    value = row[column.name]
                    if isinstance(value, datetime) and column.type.fsp:
                        digits = f"{value.microsecond:06d}"
                        assert digits[column.type.fsp - 1] != "0" and digits[column.type.fsp :] == "0" * (
                            6 - column.type.fsp
                        )
                    elif isinstance(value, datetime):
                        assert value.microsecond == 0


# --------------------------------------------- every format decodes to the expected rows


def _spark_timestamp_text(micros: int) -> str:
    """Spark's cast(timestamp as string): trailing fraction zeros dropped."""
    value = datetime(1970, 1, 1) + timedelta(microseconds=micros)
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    return text + ("." + f"{value.microsecond:06d}".rstrip("0") if value.microsecond else "")


def _debezium_value(value, field: dict):
    name = field.get("name")
    if value is None:
        return None
    if name == "org.apache.kafka.connect.data.Decimal":
        return str(decode_connect_decimal(value, int(field["parameters"]["scale"])))
    if name == "io.debezium.time.Timestamp":
        return _spark_timestamp_text(value * 1000)
    if name == "io.debezium.time.MicroTimestamp":
        return _spark_timestamp_text(value)
    if name == "io.debezium.time.Date":
        return (date(1970, 1, 1) + timedelta(days=value)).isoformat()
    return str(value)


def _row(operation, database, table, key, before, after) -> tuple:
    image = after if after is not None else before
    if before is None or after is None:
        changed = sorted(image)
    else:
        changed = sorted(n for n in after if before.get(n) != after[n])
    pk = json.dumps({k: image[k] for k in key}, ensure_ascii=False, separators=(",", ":"))
    freeze = lambda m: None if m is None else tuple(sorted(m.items()))  # noqa: E731
    return (operation, database, table, pk, freeze(before), freeze(after), tuple(changed))


def _decode(format_name: str, line: str) -> list[tuple]:
    """What a staging must make of a line (a reference reading of each format)."""
    value = json.loads(line)
    if format_name == "canal_json":
        rows = []
        for m in value if isinstance(value, list) else [value]:
            if m["isDdl"] or m["type"] == "TIDB_WATERMARK":
                continue
            key = list(dict.fromkeys(m["pkNames"]))
            for i, data in enumerate(m["data"]):
                before = {**data, **m["old"][i]} if m["type"] == "UPDATE" else data if m["type"] == "DELETE" else None
                after = None if m["type"] == "DELETE" else data
                rows.append(_row(m["type"], m["database"], m["table"], key, before, after))
        return rows
    if format_name == "cloudcanal_json":
        if value["isDdl"]:
            return []
        op = value["action"]
        return [
            _row(
                op,
                value["db"],
                value["table"],
                value["pks"],
                value["before"][i] if op == "UPDATE" else data if op == "DELETE" else None,
                None if op == "DELETE" else data,
            )
            for i, data in enumerate(value["data"])
        ]
    if format_name in ("debezium_json", "debezium_avro"):
        payload = value.get("payload", value)
        if "ddl" in payload:
            return []
        fields = {}
        if "schema" in value:
            after_schema = next(f for f in value["schema"]["fields"] if f["field"] == "after")
            fields = {f["field"]: f for f in after_schema["fields"]}
        decode = lambda image: (
            None
            if image is None
            else {  # noqa: E731
                n: _debezium_value(v, fields.get(n, {})) for n, v in image.items()
            }
        )
        op = {"c": "INSERT", "u": "UPDATE", "d": "DELETE"}[payload["op"]]
        source = payload["source"]
        key = KEYS[(source["db"], source["table"])]  # a Debezium value carries no key names
        return [_row(op, source["db"], source["table"], key, decode(payload["before"]), decode(payload["after"]))]
    if format_name == "debezium_flat_json":
        wrapped = isinstance(value.get("schema"), dict)  # a bare row may have a `payload` column
        flat = value["payload"] if wrapped else value
        fields = {f["field"]: f for f in value["schema"]["fields"]} if wrapped else {}
        row = {n: _debezium_value(v, fields.get(n, {})) for n, v in flat.items() if not n.startswith("__")}
        op = {"c": "INSERT", "u": "UPDATE", "d": "DELETE"}[flat["__op"]]
        key = KEYS[(flat["__db"], flat["__table"])]  # a flattened value carries no key names
        before, after = (row, None) if op == "DELETE" else (None, row)  # an update's old row is not sent
        return [_row(op, flat["__db"], flat["__table"], key, before, after)]
    if format_name == "maxwell_json":
        value = json.loads(line, parse_int=str, parse_float=str)  # a number's text, as staging keeps it
        if value["type"] not in ("insert", "update", "delete"):
            return []
        op, data = value["type"].upper(), value["data"]
        key = KEYS[(value["database"], value["table"])]  # not every message names its key
        before = {**data, **value["old"]} if op == "UPDATE" else data if op == "DELETE" else None
        return [_row(op, value["database"], value["table"], key, before, None if op == "DELETE" else data)]
    if format_name == "ogg_json":
        value = json.loads(line, parse_int=str, parse_float=str)  # a number's text, as staging keeps it
        if value["op_type"] == "T":
            return []
        op = {"I": "INSERT", "U": "UPDATE", "D": "DELETE"}[value["op_type"]]
        database, table = value["table"].split(".", 1)
        after = value.get("after")
        before = {**after, **value["before"]} if op == "UPDATE" else value.get("before")
        return [_row(op, database, table, value["primary_keys"], before, after)]
    if format_name == "aws_dms_json":
        value = json.loads(line, parse_int=str, parse_float=str)  # a number's text, as staging keeps it
        metadata = value["metadata"]
        if metadata["record-type"] != "data":
            return []
        op, data = metadata["operation"].upper(), value["data"]
        key = KEYS[(metadata["schema-name"], metadata["table-name"])]  # a data record names no key
        before = value["before-image"] if op == "UPDATE" else data if op == "DELETE" else None
        return [
            _row(op, metadata["schema-name"], metadata["table-name"], key, before, None if op == "DELETE" else data)
        ]
    assert format_name == "kafka_river_json"
    op = {"i": "INSERT", "u": "UPDATE", "d": "DELETE"}[value["event"]]
    image = {c["n"]: c.get("v") for c in value["columns"]}
    before = None
    if op == "UPDATE":
        before = {c["n"]: c.get("origin_val") if c["updated"] else c.get("v") for c in value["columns"]}
    elif op == "DELETE":
        before, image = image, None
    return [_row(op, value["db"], value["table"], value["keys"], before, image)]


KEYS = {
    ("shop", "customers"): ["id"],
    ("shop", "orders"): ["order_id", "line_no"],
    ("crm", "notes"): ["code"],
    ("shop", "import_batch"): ["id"],
    ("shop", "import_batch_old"): ["id"],
    ("shop", "import_queue"): ["id"],
    ("shop", "import_done"): ["id"],
}


def _oms_text(value: dict | None) -> str | None:
    """A reference reading of the ColumnValue branches the OMS encoder writes."""
    if value is None:
        return None
    ((branch, inner),) = value.items()
    kind = branch.rsplit(".", 1)[-1]
    if kind in ("int", "long"):
        return str(inner)
    if kind in ("string",):
        return inner
    if kind in ("StringObject", "DecimalObject"):
        return inner["value"]
    if kind == "DateObject":
        return f"{inner['year']:04d}-{inner['month']:02d}-{inner['day']:02d}"
    assert kind == "DateTimeObject", kind
    text = "{year:04d}-{month:02d}-{day:02d} {hours:02d}:{minutes:02d}:{seconds:02d}".format(**inner)
    return text + ("." + f"{inner['nanos']:09d}".rstrip("0") if inner["nanos"] else "")


def _decode_oms(lines: list[str]) -> list[tuple]:
    """A reference reading of one statement's OMS records: shard pieces joined by index and
    read as the images' Avro binary encoding; control and DDL records give no row."""
    from cdc_lakehouse.avro.oms import image_holder_schema

    records = [json.loads(line) for line in lines]
    pieces: dict[int, list[dict]] = {}
    rows = []
    for record in records:
        op = next(iter(record["operation"].values()))
        if op not in ("INSERT", "UPDATE", "DELETE"):
            continue
        if record["total"] >= 1:
            pieces.setdefault(record["id"], []).append(record)
            if len(pieces[record["id"]]) < record["total"]:
                continue
            shards = sorted(pieces.pop(record["id"]), key=lambda shard: shard["index"])
            for side in ("before", "after"):
                data = "".join(shard[f"{side}ImageBytes"] for shard in shards).encode("latin-1")
                images = None
                if data:
                    holder = image_holder_schema()
                    read = fastavro.schemaless_reader(io.BytesIO(data), holder, None, return_record_name=True)
                    text = io.StringIO()
                    fastavro.json_writer(text, holder, [read])
                    images = {"array": json.loads(text.getvalue())["images"]}
                record = {**record, f"{side}Images": images}
        names = [field["name"] for field in record["fields"]["array"]]
        image = lambda images: (
            None
            if images is None
            else {  # noqa: E731
                name: _oms_text(cv["value"]) for name, cv in zip(names, images["array"], strict=True)
            }
        )
        key = [names[i] for i in record["pkIndexes"]["array"]]
        rows.append(
            _row(
                op,
                record["schemaName"]["string"],
                record["tableName"]["string"],
                key,
                image(record["beforeImages"]),
                image(record["afterImages"]),
            )
        )
    assert pieces == {}
    return rows


# DTS Avro's reference reading is the Spark decoder itself (tests/unit/test_avro_dts.py and the
# equivalence test); the others have one here.
@pytest.mark.parametrize("format_name", [name for name in FORMATS if name != "dts_avro"])
def test_every_format_decodes_to_the_expected_row_changes(format_name: str) -> None:
    expected, decoded = Counter(), Counter()
    for statement in logical_stream(3, 600):
        for row in map(FORMATS[format_name].expected, expected_row_changes(statement)):
            expected[
                _row(
                    row["operation"],
                    row["database"],
                    row["table"],
                    json.loads(row["primary_key"]),
                    row["before_image"],
                    row["after_image"],
                )
            ] += 1
        lines = FORMATS[format_name].encode(statement)
        if format_name == "oms_avro":
            decoded.update(_decode_oms(lines))
            continue
        for line in lines:
            decoded.update(_decode(format_name, line))
    assert sum(expected.values()) > 1000
    assert decoded == expected


# ------------------------------------------------------------------------ files and CLI


def _lines_in(folder: Path) -> list[str]:
    # Only "\n" ends a line: OMS shard bytes hold characters str.splitlines() splits on.
    return [
        line
        for path in sorted(folder.glob("part-*.jsonl"))
        for line in path.read_text(encoding="utf-8").removesuffix("\n").split("\n")
    ]


def test_generate_rolls_files_at_the_size_and_loses_no_line(tmp_path: Path) -> None:
    whole = generate(tmp_path / "whole", 200, seed=4)
    rolled = generate(tmp_path / "rolled", 200, seed=4, max_file_bytes=20_000)
    for name in FORMATS:
        # A new file at each restart, after statements 36 and 136.
        assert [p.name for p in whole[name].files] == ["part-00000.jsonl", "part-00001.jsonl", "part-00002.jsonl"]
        files = rolled[name].files
        assert len(files) > 3
        assert [p.name for p in files] == [f"part-{i:05d}.jsonl" for i in range(len(files))]
        for path in files:
            size = path.stat().st_size
            assert size <= 20_000 or len(path.read_bytes().splitlines()) == 1, path
        assert _lines_in(tmp_path / "rolled" / name) == _lines_in(tmp_path / "whole" / name)
        assert rolled[name].lines == len(_lines_in(tmp_path / "whole" / name))
        for kind in ("row_changes", "schema_changes"):
            assert (tmp_path / "rolled" / "_expected" / name / f"{kind}.jsonl").read_bytes() == (
                tmp_path / "whole" / "_expected" / name / f"{kind}.jsonl"
            ).read_bytes()


def test_a_restart_sends_the_last_statements_again_in_a_new_envelope_and_file(tmp_path: Path) -> None:
    sent = list(deliveries(logical_stream(4, 40)))
    assert [(s.seq, s.delivery) for s in sent[35:43]] == [
        (35, 0),
        (36, 0),
        *[(seq, 1) for seq in range(32, 37)],
        (37, 0),
    ]
    copies = sent[37:42]
    for copy in copies:
        original = sent[copy.seq]
        assert (copy.changes, copy.schema_change, copy.event_ms, copy.position) == (
            original.changes,
            original.schema_change,
            original.event_ms,
            original.position,
        )
        assert copy.emitted_ms == original.emitted_ms + RESTART_DELAY_MS
    # The restart re-sends the curated same-time DELETE and re-INSERT, and INSERT, DELETE and
    # INSERT, of one row.
    assert [s.operation for s in copies] == ["DELETE", "INSERT", "INSERT", "DELETE", "INSERT"]
    assert len({s.event_ms for s in copies[:2]}) == len({s.event_ms for s in copies[2:]}) == 1

    counts = generate(tmp_path, 40, seed=4)
    redelivered = json.loads((tmp_path / "_expected" / REDELIVERED_CHANGES_FILE).read_text())
    for name, encoder in FORMATS.items():
        _, restarted = counts[name].files
        resent = [line for statement in copies for line in encoder.encode(statement)]
        assert restarted.read_text().splitlines()[: len(resent)] == resent
        # And the producer retries' copies: statements 10 and 16 (two rows each) and 29 (an ALTER).
        retried = 4 + len(encoder.sent_schema_changes(expected_schema_changes(sent[29])))
        assert redelivered[name] == counts[name].redelivered_changes == 5 + retried
    lines = (tmp_path / "canal_json" / "part-00001.jsonl").read_text().splitlines()[:5]
    sent_lines = [json.loads(line) for line in lines]
    canal = [message for line in sent_lines for message in (line if isinstance(line, list) else [line])]
    # New batch ids; statement 32 (% 6 == 2) is TiCDC's, with no id and its TSO again.
    assert [message["id"] for message in canal] == [0, *(1_000_000_033 + n for n in range(1, 5))]
    assert canal[0]["_tidb"] == {"commitTs": copies[0].event_ms << 18 | 32}


def test_a_restart_sends_an_oms_shard_set_again(tmp_path: Path) -> None:
    # Seed 1's statement 132 is an UPDATE, which OMS shards; the restart after 136 re-sends it.
    counts = generate(tmp_path, 140, seed=1, formats=["oms_avro"])
    original, copy = (
        [
            record
            # Only "\n" ends a line: shard bytes hold characters str.splitlines() splits on.
            for record in map(json.loads, path.read_text().removesuffix("\n").split("\n"))
            if record["total"] > 0 and 132_000 < record["id"] < 137_000
        ]
        for path in counts["oms_avro"].files[1:]
    )
    assert copy == original
    assert {record["index"] for record in copy} == {0, 1}  # sets of 2 shards


def _pairs(lines: list[str]) -> list[str]:
    """The lines that come twice in a row."""
    return [line for line, after in zip(lines, lines[1:]) if line == after]


def test_a_producer_retry_writes_each_message_again_right_after_it_in_the_same_file(tmp_path: Path) -> None:
    stream = list(logical_stream(4, 300))
    retried = [statement for statement in stream if producer_retried(statement)]
    assert [s.seq for s in retried] == [10, 16, 29, 161, 251]
    assert any(len(s.changes) > 1 for s in retried) and any(s.schema_change for s in retried)
    # Small files: a line and its copy never straddle two.
    counts = generate(tmp_path, 300, seed=4, max_file_bytes=20_000)
    redelivered = json.loads((tmp_path / "_expected" / REDELIVERED_CHANGES_FILE).read_text())
    for name, encoder in FORMATS.items():
        assert len(counts[name].files) > 3
        pairs = [line for path in counts[name].files for line in _pairs(_lines_in_file(path))]
        assert pairs == [line for statement in retried for line in encoder.encode(statement)], name
        if encoder.carries_ddl and "ALTER" in encoder.ddl_kinds:
            assert encoder.encode(stream[29])[0] in pairs, name
        # Each copy counts as a redelivered change, as a restart's do; the facts hold it once.
        copies = sum(
            len(expected_row_changes(s)) + len(encoder.sent_schema_changes(expected_schema_changes(s)))
            for s in [*retried, *(s for s in deliveries(stream) if s.delivery)]
        )
        assert redelivered[name] == counts[name].redelivered_changes == copies, name
        rows = (tmp_path / "_expected" / name / "row_changes.jsonl").read_text().splitlines()
        assert len(rows) == sum(len(s.changes) for s in stream)
    # Canal's batch array line (statement 16 % 4 == 0, two one-row messages) is copied whole.
    [batch] = FORMATS["canal_json"].encode(stream[16])
    assert len(json.loads(batch)) == 2 and batch in _pairs(_lines_in(tmp_path / "canal_json"))
    # OMS copies are whole records: never a control record or a lone shard.
    for line in _pairs(_lines_in(tmp_path / "oms_avro")):
        record = json.loads(line)
        operation = next(iter(record["operation"].values()))
        assert record["total"] == -1 and operation not in ("BEGIN", "COMMIT", "HEARTBEAT")


def test_a_producer_retry_copies_an_avro_record_in_a_container_file(tmp_path: Path) -> None:
    avro = ["dts_avro", "oms_avro"]
    as_json = generate(tmp_path / "json", 300, seed=4, formats=avro, max_file_bytes=20_000)
    binary = generate(tmp_path / "binary", 300, seed=4, formats=avro, max_file_bytes=20_000, avro_encoding="binary")
    for name in avro:
        assert len(binary[name].files) == len(as_json[name].files) > 3
        copies = 0
        for json_part, binary_part in zip(as_json[name].files, binary[name].files, strict=True):
            with binary_part.open("rb") as file:
                records = list(fastavro.reader(file))
            lines = _lines_in_file(json_part)
            assert len(records) == len(lines)
            same = [i for i in range(1, len(records)) if records[i] == records[i - 1]]
            assert same == [i for i in range(1, len(lines)) if lines[i] == lines[i - 1]], binary_part
            copies += len(same)
        assert copies == sum(len(FORMATS[name].encode(s)) for s in logical_stream(4, 300) if producer_retried(s)) > 0
        assert binary[name].redelivered_changes == as_json[name].redelivered_changes


def test_a_line_and_its_copies_share_a_file(tmp_path: Path) -> None:
    writer = RollingWriter(tmp_path, max_bytes=12)
    writer.write("abcde")
    writer.write("fghij", copies=2)  # 12 bytes: past the first file's room, together in the next
    writer.write("k")
    writer.close()
    assert [path.read_text() for path in writer.files] == ["abcde\n", "fghij\nfghij\n", "k\n"]


def _lines_in_file(path: Path) -> list[str]:
    # Only "\n" ends a line: OMS shard bytes hold characters str.splitlines() splits on.
    return path.read_text(encoding="utf-8").removesuffix("\n").split("\n")


def test_a_statement_that_waited_on_a_row_lock_carries_the_earlier_time_and_the_later_position() -> None:
    stream = list(logical_stream(4, 300))
    waits = [(a, b) for a, b in zip(stream, stream[1:]) if b.event_ms < a.event_ms]
    assert [(a.seq, b.seq) for a, b in waits] == [(72, 73), (222, 223)]
    for first, waited in waits:
        assert first.operation == waited.operation == "UPDATE" and first.table == waited.table
        [(before, after)], [(waited_before, _)] = first.images, waited.images
        assert before["id"] == after["id"] == waited_before["id"] and waited_before == after
        assert waited.event_ms == first.event_ms - LOCK_WAIT_MS
        # The clock goes on: the waited statement's emit time and the next statement's time are
        # past the first's time.
        assert waited.emitted_ms > first.event_ms and stream[waited.seq + 1].event_ms > first.event_ms
        debezium = [encode("debezium_json", s)[0] for s in (first, waited)]
        sources = [line.get("payload", line)["source"] for line in debezium]
        assert sources[1]["ts_ms"] < sources[0]["ts_ms"]
        assert (sources[1]["file"], sources[1]["pos"]) > (sources[0]["file"], sources[0]["pos"])
        maxwell = [encode("maxwell_json", s)[0] for s in (first, waited)]
        assert maxwell[1]["ts"] == maxwell[0]["ts"] - 1
        assert maxwell[0]["position"].split(":")[0] == maxwell[1]["position"].split(":")[0]
        assert int(maxwell[1]["position"].split(":")[1]) > int(maxwell[0]["position"].split(":")[1])
    # No later statement changes the row: the tables end as the waited statement left it.
    table, customers = final_tables(4, 300)["shop", "customers"]
    for _, waited in waits:
        [(_, after)] = waited.images
        [row] = [row for row in customers if str(row["id"]) == after["id"]]
        final = {column.name: value_text(row[column.name], column.type) for column in table.columns}
        assert {name: value for name, value in final.items() if name in after} == after
    # TiCDC stamps commit times: its TSOs never go back, and no waited statement is its.
    tsos = [
        message["_tidb"]["commitTs"]
        for statement in stream
        for message in encode("canal_json", statement)
        if isinstance(message, dict) and "commitTs" in message.get("_tidb", {})
    ]
    assert len(tsos) > 40 and tsos == sorted(tsos)
    assert all("_tidb" not in message for _, waited in waits for message in encode("canal_json", waited))
