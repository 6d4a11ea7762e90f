"""Debezium MySQL connector JSON (spec 002's Debezium Envelope; Debezium's own documentation).

Row changes: one message per row, `payload` {before, after, source, op c/u/d, ts_ms,
transaction}; before/after are full rows (before null for c, after null for d). `source`
{version, connector, name, ts_ms (execution time), snapshot, db, sequence, table, server_id,
gtid, file, pos (the statement's event position, shared by its rows), row (the row's index in
the event), thread, query}; `payload.ts_ms` is the send time.

Lines alternate by statement `seq`: even statements come as {"schema": ..., "payload": ...}
(Kafka Connect JsonConverter with schemas), odd ones as the bare payload (schemas disabled).
- With `schema`, values use Debezium's default MySQL mapping: int32/int64 numbers; decimals as
  `org.apache.kafka.connect.data.Decimal` (base64 of the unscaled value's big-endian two's
  complement bytes, `parameters.scale`); datetime(0-3) as `io.debezium.time.Timestamp` (epoch
  ms) and datetime(4-6) as `io.debezium.time.MicroTimestamp` (epoch µs), the wall-clock time
  read as UTC; dates as `io.debezium.time.Date` (days since 1970-01-01); strings as strings.
- Without `schema` nothing says a number is a time, so those lines carry decimals as strings
  (`decimal.handling.mode=string`) and datetimes and dates as their MySQL text, as a string
  converter gives them; ints stay JSON numbers.

DDL: a schema-change event, payload {source, ts_ms, databaseName, schemaName null, ddl,
tableChanges: [{type CREATE/ALTER/DROP, id "\"db\".\"table\"", table {...1-based columns}}]}
(empty for QUERY and TRUNCATE), with or without `schema` like row changes. RENAME and index DDL
are ALTER table changes, as in Debezium; the DDL kind is only in the `ddl` text.
"""

from __future__ import annotations

import base64
import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.formats._table_changes import CHANGE_TYPES
from cdc_tools.generator.model import Column, Row, Statement, Table
from cdc_tools.generator.mutation_rules import (
    JSON_MUTATIONS,
    EventTime,
    FormatRules,
    Message,
    Path,
    get,
    null_in_images,
)

SERVER = "server1"
OPS = {"INSERT": "c", "UPDATE": "u", "DELETE": "d"}
EPOCH = datetime(1970, 1, 1)
EPOCH_DAY = date(1970, 1, 1)


def connect_decimal(value: Decimal, scale: int) -> str:
    """Kafka Connect Decimal: base64 of the value unscaled at its column's scale (12345.11 at
    scale 3 is 12345110) as Java's BigInteger.toByteArray() (minimal big-endian two's
    complement); the scale travels in the schema."""
    shifted = value.scaleb(scale)
    if shifted != shifted.to_integral_value():
        raise ValueError(f"{value} has more digits than scale {scale}")
    unscaled = int(shifted)
    size = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
    return base64.b64encode(unscaled.to_bytes(size, "big", signed=True)).decode("ascii")


def decode_connect_decimal(text: str, scale: int) -> Decimal:
    """The inverse of `connect_decimal`."""
    unscaled = int.from_bytes(base64.b64decode(text), "big", signed=True)
    return Decimal(unscaled).scaleb(-scale)


def _field_schema(column: Column) -> dict[str, Any]:
    kind = column.type.kind
    schema: dict[str, Any]
    if kind == "int":
        schema = {"type": "int32"}
    elif kind == "bigint":
        schema = {"type": "int64"}
    elif kind == "decimal":
        schema = {
            "type": "bytes",
            "name": "org.apache.kafka.connect.data.Decimal",
            "version": 1,
            "parameters": {
                "scale": str(column.type.scale),
                "connect.decimal.precision": str(column.type.precision),
            },
        }
    elif kind == "datetime":
        name = "MicroTimestamp" if column.type.fsp > 3 else "Timestamp"
        schema = {"type": "int64", "name": f"io.debezium.time.{name}", "version": 1}
    elif kind == "date":
        schema = {"type": "int32", "name": "io.debezium.time.Date", "version": 1}
    else:
        schema = {"type": "string"}
    return {**schema, "optional": column.nullable, "field": column.name}


def _schema_value(value: Any, column: Column) -> Any:
    if value is None:
        return None
    kind = column.type.kind
    if kind == "decimal":
        assert column.type.scale is not None
        return connect_decimal(value, column.type.scale)
    if kind == "datetime":
        micros = (value - EPOCH) // _MICROSECOND
        return micros if column.type.fsp > 3 else micros // 1000
    if kind == "date":
        return (value - EPOCH_DAY).days
    return value


def _image(
    table: Table, row: Row | None, text: dict[str, str | None] | None, with_schema: bool
) -> dict[str, Any] | None:
    """A row in Debezium's types (with a schema), or as text with ints as numbers (without)."""
    if row is None or text is None:
        return None
    if with_schema:
        return {column.name: _schema_value(row[column.name], column) for column in table.columns}
    image: dict[str, Any] = dict(text)
    for column in table.columns:
        if column.type.kind in ("int", "bigint"):
            image[column.name] = row[column.name]
    return image


_SOURCE_SCHEMA = {
    "type": "struct",
    "name": "io.debezium.connector.mysql.Source",
    "optional": False,
    "field": "source",
    "fields": [
        {"type": "string", "optional": False, "field": "version"},
        {"type": "string", "optional": False, "field": "connector"},
        {"type": "string", "optional": False, "field": "name"},
        {"type": "int64", "optional": False, "field": "ts_ms"},
        {"type": "string", "optional": True, "field": "snapshot"},
        {"type": "string", "optional": False, "field": "db"},
        {"type": "string", "optional": True, "field": "sequence"},
        {"type": "string", "optional": True, "field": "table"},
        {"type": "int64", "optional": False, "field": "server_id"},
        {"type": "string", "optional": True, "field": "gtid"},
        {"type": "string", "optional": False, "field": "file"},
        {"type": "int64", "optional": False, "field": "pos"},
        {"type": "int32", "optional": False, "field": "row"},
        {"type": "int64", "optional": True, "field": "thread"},
        {"type": "string", "optional": True, "field": "query"},
    ],
}

# Debezium's schema of a column in `tableChanges` (ConnectTableChangeSerializer).
_COLUMN_SCHEMA = {
    "type": "struct",
    "name": "io.debezium.connector.schema.Column",
    "optional": False,
    "fields": [
        {"type": "string", "optional": False, "field": "name"},
        {"type": "int32", "optional": False, "field": "jdbcType"},
        {"type": "int32", "optional": True, "field": "nativeType"},
        {"type": "string", "optional": False, "field": "typeName"},
        {"type": "string", "optional": True, "field": "typeExpression"},
        {"type": "string", "optional": True, "field": "charsetName"},
        {"type": "int32", "optional": True, "field": "length"},
        {"type": "int32", "optional": True, "field": "scale"},
        {"type": "int32", "optional": False, "field": "position"},
        {"type": "boolean", "optional": True, "field": "optional"},
        {"type": "boolean", "optional": True, "field": "autoIncremented"},
        {"type": "boolean", "optional": True, "field": "generated"},
    ],
}

_CHANGE_SCHEMA = {
    "type": "struct",
    "name": "io.debezium.connector.mysql.SchemaChangeValue",
    "optional": False,
    "fields": [
        _SOURCE_SCHEMA,
        {"type": "int64", "optional": False, "field": "ts_ms"},
        {"type": "string", "optional": True, "field": "databaseName"},
        {"type": "string", "optional": True, "field": "schemaName"},
        {"type": "string", "optional": True, "field": "ddl"},
        {
            "type": "array",
            "optional": False,
            "field": "tableChanges",
            "items": {
                "type": "struct",
                "name": "io.debezium.connector.schema.Change",
                "optional": False,
                "fields": [
                    {"type": "string", "optional": False, "field": "type"},
                    {"type": "string", "optional": False, "field": "id"},
                    {
                        "type": "struct",
                        "name": "io.debezium.connector.schema.Table",
                        "optional": True,
                        "field": "table",
                        "fields": [
                            {"type": "string", "optional": True, "field": "defaultCharsetName"},
                            {
                                "type": "array",
                                "items": {"type": "string", "optional": False},
                                "optional": True,
                                "field": "primaryKeyColumnNames",
                            },
                            {
                                "type": "array",
                                "items": _COLUMN_SCHEMA,
                                "optional": False,
                                "field": "columns",
                            },
                        ],
                    },
                ],
            },
        },
    ],
}
_CHANGE_SCHEMA_JSON = dumps(_CHANGE_SCHEMA)

_MICROSECOND = datetime(1970, 1, 1, 0, 0, 0, 1) - EPOCH
_envelope_cache: dict[int, tuple[Table, str]] = {}
_ENVELOPE_CACHE_SIZE = 64  # table definitions in use at once; DDL keeps making new ones


def _envelope_schema_json(table: Table) -> str:
    """The envelope's schema as JSON text, built once per table definition."""
    cached = _envelope_cache.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    if len(_envelope_cache) >= _ENVELOPE_CACHE_SIZE:
        _envelope_cache.clear()
    prefix = f"{SERVER}.{table.database}.{table.name}"
    value = {
        "type": "struct",
        "name": f"{prefix}.Value",
        "optional": True,
        "fields": [_field_schema(column) for column in table.columns],
    }
    schema = {
        "type": "struct",
        "name": f"{prefix}.Envelope",
        "version": 1,
        "optional": False,
        "fields": [
            {**value, "field": "before"},
            {**value, "field": "after"},
            _SOURCE_SCHEMA,
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
            {
                "type": "struct",
                "name": "event.block",
                "version": 1,
                "optional": True,
                "field": "transaction",
                "fields": [
                    {"type": "string", "optional": False, "field": "id"},
                    {"type": "int64", "optional": False, "field": "total_order"},
                    {"type": "int64", "optional": False, "field": "data_collection_order"},
                ],
            },
        ],
    }
    text = dumps(schema)
    _envelope_cache[id(table)] = (table, text)
    return text


def _source(statement: Statement, database: str, table: str | None, row: int) -> dict[str, Any]:
    return {
        "version": "2.7.3.Final",
        "connector": "mysql",
        "name": SERVER,
        "ts_ms": statement.event_ms,
        "snapshot": "false",
        "db": database,
        "sequence": None,
        "table": table,
        "server_id": 223344,
        "gtid": None,
        "file": statement.position.file,
        "pos": statement.position.offset,
        "row": row,
        "thread": 7,
        "query": None,
    }


def _line(schema_json: str | None, payload: dict[str, Any]) -> str:
    if schema_json is None:
        return dumps(payload)
    return '{"schema":' + schema_json + ',"payload":' + dumps(payload) + "}"


def _table_change(statement: Statement) -> list[dict[str, Any]]:
    change = statement.schema_change
    assert change is not None
    if change.kind not in CHANGE_TYPES:
        return []
    table = change.table
    assert table is not None
    return [
        {
            "type": CHANGE_TYPES[change.kind],
            "id": f'"{table.database}"."{table.name}"',
            "table": {
                "defaultCharsetName": "utf8mb4",
                "primaryKeyColumnNames": list(table.key),
                "columns": [
                    {
                        "name": column.name,
                        "jdbcType": column.type.jdbc_type,
                        "nativeType": None,
                        "typeName": column.type.type_name,
                        "typeExpression": column.type.mysql_type,
                        "charsetName": None,
                        "length": column.type.length or column.type.precision,
                        "scale": column.type.scale,
                        "position": position,
                        "optional": column.nullable,
                        "autoIncremented": False,
                        "generated": False,
                    }
                    for position, column in enumerate(table.columns, start=1)
                ],
            },
        }
    ]


def encode(statement: Statement, with_schema: bool | None = None) -> list[str]:
    """The statement's lines: with their schema on even statements and bare on odd ones, unless
    `with_schema` says."""
    with_schema = statement.seq % 2 == 0 if with_schema is None else with_schema
    change = statement.schema_change
    if change is not None:
        payload = {
            "source": _source(statement, change.database, change.table_name, 0),
            "ts_ms": statement.emitted_ms,
            "databaseName": change.database,
            "schemaName": None,
            "ddl": change.sql,
            "tableChanges": _table_change(statement),
        }
        return [_line(_CHANGE_SCHEMA_JSON if with_schema else None, payload)]
    table = statement.table
    assert table is not None
    schema_json = _envelope_schema_json(table) if with_schema else None
    return [
        _line(
            schema_json,
            {
                "before": _image(table, row_change.before, statement.images[row][0], with_schema),
                "after": _image(table, row_change.after, statement.images[row][1], with_schema),
                "source": _source(statement, table.database, table.name, row),
                "op": OPS[row_change.operation],
                "ts_ms": statement.emitted_ms,
                "transaction": None,
            },
        )
        for row, row_change in enumerate(statement.changes)
    ]


# ------------------------------------------------------------------- hostile-input rules


def _debezium_root(message: Message) -> Message:
    return message["payload"] if isinstance(message.get("payload"), dict) else message


def _debezium_missing(message: Message, path: Path) -> str | None:
    payload = _debezium_root(message)
    op = payload.get("op")
    if op is None:  # a schema change event
        if path in (("source",), ("source", "db")) and not payload.get("databaseName"):
            return "missing_database"
        if path == ("databaseName",) and not get(payload, ("source", "db")):
            return "missing_database"
        table_gone = path in (("source",), ("source", "table"))
        if table_gone and not payload.get("tableChanges") and _is_table_statement(payload):
            return "control_event"  # as the connector sends a statement its schema history holds
        return "missing_sql" if path == ("ddl",) and not payload.get("tableChanges") else None
    if path == ("op",):
        return "missing_event_type"
    if path in (("source",), ("source", "db")):
        return "missing_database"
    if path == ("source", "table"):
        return "missing_table"
    if path == ("after",) and op != "d":
        return "missing_row_image"
    if path == ("before",):
        return {"d": "missing_row_image", "u": "missing_old_image"}.get(op)
    return None


def _is_table_statement(payload: Message) -> bool:
    return bool(re.match(r"\s*(alter|create|drop|rename|truncate)\s+table\b", payload.get("ddl") or "", re.IGNORECASE))


def _debezium_rename(message: Message, database: str, table: str) -> None:
    """A schema change names its table in its `tableChanges` ids too ("db"."table"), and first."""
    for change in _debezium_root(message).get("tableChanges") or []:
        if isinstance(change, dict) and change.get("id"):
            change["id"] = f'"{database}"."{table}"'


def _debezium_add_column(message: Message, column: str, value: Any) -> None:
    payload = _debezium_root(message)
    for name in ("before", "after"):
        if isinstance(payload.get(name), dict):
            payload[name][column] = value


RULES = FormatRules(
    operation=("op",),
    operation_codes=frozenset({"c", "r", "i", "u", "d", "t", "a", "m"}),
    fields={
        ("op",): frozenset({"string"}),
        ("ts_ms",): frozenset({"integer"}),
        ("before",): frozenset({"object"}),
        ("after",): frozenset({"object"}),
        ("source",): frozenset({"object"}),
        ("source", "connector"): frozenset({"string"}),
        ("source", "db"): frozenset({"string"}),
        ("source", "schema"): frozenset({"string"}),
        ("source", "table"): frozenset({"string"}),
        ("source", "file"): frozenset({"string"}),
        ("source", "pos"): frozenset({"integer"}),
        ("source", "ts_ms"): frozenset({"integer"}),
        ("databaseName",): frozenset({"string"}),
        ("ddl",): frozenset({"string"}),
        ("tableChanges",): frozenset({"array", "object"}),
    },
    kind=lambda m: "schema_change" if _debezium_root(m).get("op") is None else "row_change",
    missing_reason=_debezium_missing,
    database=("source", "db"),
    table=("source", "table"),
    add_column=_debezium_add_column,
    blank_line={0: frozenset({("skipped", "tombstone")})},
    batches=False,
    # extreme_number too: with a Connect schema a column's value is read by its field's type, but
    # an added column has no field there, so its JSON text is kept as without a schema.
    mutations=tuple(m for m in JSON_MUTATIONS if m != "mixed_batch"),
    root=_debezium_root,
    event_time=EventTime(("source", "ts_ms"), lambda epoch_ms: epoch_ms),
    null_column=null_in_images("before", "after", root=_debezium_root),
    rename_table=_debezium_rename,
)
