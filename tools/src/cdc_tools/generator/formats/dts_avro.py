"""Aliyun DTS Avro (spec 002 points to the DTS `Record` schema, schemas/dts_avro.avsc), each
record as a line in Avro's JSON encoding; the writer can land the same records as binary
container files (`AVRO_SCHEMA`).

- One record per changed row (DTS does not batch rows): `operation` INSERT/UPDATE/DELETE,
  `objectName` "db.table", `fields` every column with its MySQL binlog type number,
  `beforeImages` (UPDATE, DELETE) and `afterImages` (INSERT, UPDATE) full rows as arrays of
  typed values: Integer (int, bigint), Decimal (exact text), Character (utf8mb4 bytes),
  DateTime (datetime with `millis` holding the microseconds; date with the date parts only).
  NULL is a null item on even statements and EmptyObject NULL on odd ones.
- `sourceTimestamp` the execution time in epoch seconds (DTS carries no milliseconds),
  `processTimestamps` the send time (epoch ms), `sourcePosition` "<offset>@<binlog file>",
  `tags.pk_uk_info` the key, {"PRIMARY": [...]}, as the DTS SDK reads it.
- DDL: `operation` DDL, `objectName` "db.table" ("db" for a database-level statement), no
  `fields`, `afterImages` the SQL text.
- `id` is unique in the stream: statement seq * 100000 + row.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from cdc_lakehouse.avro import record_schema
from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Column, Row, Statement, Table, TypeKind
from cdc_tools.generator.mutation_rules import (
    AVRO_MUTATIONS,
    CONTAINER_MUTATIONS,
    EventTime,
    FormatRules,
    Message,
    Path,
    add_to_avro_images,
    enum_symbols,
    image_value_unions,
    null_in_avro_images,
    rejected,
    union_fields,
)

AVRO_SCHEMA = record_schema("dts_avro")
# `sourceTimestamp` is whole seconds.
EVENT_TIME_RESOLUTION_MS = 1000

NAMESPACE = "com.alibaba.dts.formats.avro."
# MySQL binlog column type numbers (enum_field_types), DTS's dataTypeNumber.
DATA_TYPE_NUMBERS: dict[TypeKind, int] = {
    "int": 3,
    "bigint": 8,
    "decimal": 246,
    "varchar": 15,
    "text": 252,
    "datetime": 18,
    "date": 10,
}
_SOURCE = {"sourceType": "MySQL", "version": "8.0.32"}


def _optional_int(value: int | None) -> dict[str, int] | None:
    return None if value is None else {"int": value}


def _datetime(value: datetime | date, fsp: int | None) -> dict[str, Any]:
    parts: dict[str, Any] = {"year": value.year, "month": value.month, "day": value.day}
    if isinstance(value, datetime):
        parts |= {
            "hour": value.hour,
            "minute": value.minute,
            "second": value.second,
            "millis": value.microsecond if fsp else None,
        }
    names = ("year", "month", "day", "hour", "minute", "second", "millis")
    return {name: _optional_int(parts.get(name)) for name in names}


def value_json(value: Any, column: Column, null_as_empty_object: bool) -> dict[str, Any] | None:
    """One column value as its union branch in Avro's JSON encoding."""
    if value is None:
        return {NAMESPACE + "EmptyObject": "NULL"} if null_as_empty_object else None
    kind = column.type.kind
    if kind in ("int", "bigint"):
        return {NAMESPACE + "Integer": {"precision": 11 if kind == "int" else 20, "value": str(value)}}
    if kind == "decimal":
        return {
            NAMESPACE + "Decimal": {
                "value": f"{value:f}",
                "precision": column.type.precision,
                "scale": column.type.scale,
            }
        }
    if kind in ("datetime", "date"):
        return {NAMESPACE + "DateTime": _datetime(value, column.type.fsp if kind == "datetime" else None)}
    # Avro bytes in the JSON encoding: one code point per byte.
    return {NAMESPACE + "Character": {"charset": "utf8mb4", "value": value.encode("utf-8").decode("latin-1")}}


def _image(table: Table, row: Row | None, null_as_empty_object: bool) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"array": [value_json(row[c.name], c, null_as_empty_object) for c in table.columns]}


def _seconds(epoch_ms: int) -> int:
    """`sourceTimestamp`: epoch seconds."""
    return epoch_ms // 1000


def _record(statement: Statement, operation: str, object_name: str, **fields: Any) -> dict[str, Any]:
    position = f"{statement.position.offset}@{statement.position.file}"
    return {
        "version": 1,
        "id": statement.seq * 100_000 + fields.pop("row", 0),
        "sourceTimestamp": _seconds(statement.event_ms),
        "sourcePosition": position,
        "safeSourcePosition": position,
        "sourceTxid": str(statement.seq),
        "source": _SOURCE,
        "operation": operation,
        "objectName": {"string": object_name},
        "processTimestamps": {"array": [statement.emitted_ms]},
        "tags": fields.pop("tags", {}),
        "fields": fields.pop("fields", None),
        "beforeImages": fields.pop("beforeImages", None),
        "afterImages": fields.pop("afterImages", None),
    }


def encode(statement: Statement) -> list[str]:
    change = statement.schema_change
    if change is not None:
        object_name = change.database if change.table_name is None else f"{change.database}.{change.table_name}"
        return [dumps(_record(statement, "DDL", object_name, afterImages={"string": change.sql}))]
    table = statement.table
    assert table is not None
    fields = {"array": [{"name": c.name, "dataTypeNumber": DATA_TYPE_NUMBERS[c.type.kind]} for c in table.columns]}
    tags = {"pk_uk_info": json.dumps({"PRIMARY": list(table.key)}, separators=(",", ":"))}
    empty_object = statement.seq % 2 == 1
    return [
        dumps(
            _record(
                statement,
                row_change.operation,
                f"{table.database}.{table.name}",
                row=row,
                tags=tags,
                fields=fields,
                beforeImages=_image(table, row_change.before, empty_object),
                afterImages=_image(table, row_change.after, empty_object),
            )
        )
        for row, row_change in enumerate(statement.changes)
    ]


# ------------------------------------------------------------------- hostile-input rules


def _dts_missing(message: Message, path: Path) -> str | None:
    operation = message.get("operation")
    if path == ("operation",):
        return "missing_event_type"
    if path == ("objectName",):
        return "missing_database"
    if operation == "DDL":
        return "missing_sql" if path == ("afterImages",) else None
    return {
        ("fields",): "missing_columns",
        ("afterImages",): None if operation == "DELETE" else "missing_row_image",
        ("beforeImages",): {"DELETE": "missing_row_image", "UPDATE": "missing_old_image"}.get(operation),
    }.get(path)


def _dts_unions(message: Message) -> list[tuple[Path, str]]:
    record = [((name,), "unknown_union_branch") for name in union_fields(AVRO_SCHEMA) if message.get(name) is not None]
    return record + image_value_unions(("beforeImages", "afterImages"), (), "unknown_value_type")(message)


RULES = FormatRules(
    operation=("operation",),
    operation_codes=frozenset(enum_symbols(AVRO_SCHEMA, "operation")),
    fields={
        ("version",): frozenset({"integer"}),
        ("id",): frozenset({"integer"}),
        ("sourceTimestamp",): frozenset({"integer"}),
        ("source",): frozenset({"object"}),
        ("objectName",): frozenset({"object"}),
        ("processTimestamps",): frozenset({"object"}),
        ("tags",): frozenset({"object"}),
        ("fields",): frozenset({"object"}),
        ("beforeImages",): frozenset({"object"}),
        ("afterImages",): frozenset({"object"}),
        ("operation",): frozenset({"string"}),
        ("sourcePosition",): frozenset({"string"}),
        ("safeSourcePosition",): frozenset({"string"}),
        ("sourceTxid",): frozenset({"string"}),
    },
    kind=lambda m: "schema_change" if m.get("operation") == "DDL" else "row_change",
    missing_reason=_dts_missing,
    database=("objectName", "string"),
    table=("objectName", "string"),
    # A Character value: Avro bytes in the JSON encoding, one code point per UTF-8 byte.
    add_column=add_to_avro_images(
        lambda v: {NAMESPACE + "Character": {"charset": "utf8mb4", "value": v.encode().decode("latin-1")}}, 15
    ),
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=AVRO_MUTATIONS,
    column_name_key="name",
    object_name=("objectName", "string"),
    unions=_dts_unions,
    # U+FFFD is not a byte of a Character's bytes.
    invalid_utf8=rejected("invalid_value"),
    avro_schema=AVRO_SCHEMA,
    event_time=EventTime(("sourceTimestamp",), _seconds),
    # NULL as a null item (as on even statements).
    null_column=null_in_avro_images(lambda item: None),
    container_mutations=CONTAINER_MUTATIONS,
)
