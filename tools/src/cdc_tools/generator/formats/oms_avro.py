"""OceanBase OMS Avro records (004) in Avro's JSON encoding, one record per line.

- One record per changed row (`beforeImages`/`afterImages`: one ColumnValue per column of
  `fields`), `pkIndexes` the key's column positions; ids count records from 1.
- Values: int -> INTEGER `int`, bigint -> LONG `long`, decimal -> DecimalObject (scale kept),
  varchar -> STRING StringObject (utf8mb4), text -> STRING `string`, datetime ->
  DateTimeObject (nanos), date -> DateObject; NULL is the null branch.
- `timestamp` is the execution time in epoch seconds (OMS has no emit time); `position`
  the binlog `<file>:<offset>`; `xid` the statement's transaction, `txind` B/M/E over its
  records (W for a single one).
- Every third statement is framed by BEGIN and COMMIT records, and every 25th is preceded by a
  HEARTBEAT: control records with no rows.
- UPDATE statements with seq % 5 == 2 come sharded: each row's record is split in
  `total` = 2 or 3 records sharing its id, images null, `beforeImageBytes`/`afterImageBytes`
  consecutive pieces of the images' Avro binary encoding.
- DDL: operation DDL, `sql`, `schemaName`, `tableName` (null for database-level statements).
"""

from __future__ import annotations

import io
from datetime import date, datetime
from typing import Any

import fastavro

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.oms import image_holder_schema
from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Column, Statement, Table, Value
from cdc_tools.generator.mutation_rules import (
    AVRO_MUTATIONS,
    CONTAINER_MUTATIONS,
    EventTime,
    FormatRules,
    Message,
    Path,
    add_to_avro_images,
    enum_symbols,
    get,
    image_value_unions,
    null_in_avro_images,
    rejected,
    union_fields,
)

AVRO_SCHEMA = record_schema("oms_avro")
# `timestamp` is whole seconds and there is no emit time.
EVENT_TIME_RESOLUTION_MS = 1000
CARRIES_EMIT_TIME = False

NAMESPACE = "com.oceanbase.oms.avro"
# MySQL protocol type numbers, as `dataTypeNumber`.
TYPE_NUMBERS = {"int": 3, "bigint": 8, "decimal": 246, "varchar": 15, "text": 252, "datetime": 12, "date": 10}
DATA_TYPES = {
    "int": "INTEGER",
    "bigint": "LONG",
    "decimal": "DECIMAL",
    "varchar": "STRING",
    "text": "STRING",
    "datetime": "DATETIME",
    "date": "DATE",
}


def _named(name: str) -> str:
    return f"{NAMESPACE}.{name}"


def _value(value: Value, column: Column) -> dict[str, Any] | None:
    """A ColumnValue's `value` union in Avro's JSON encoding."""
    if value is None:
        return None
    kind = column.type.kind
    if kind == "int":
        return {"int": value}
    if kind == "bigint":
        return {"long": value}
    if kind == "decimal":
        return {
            _named("DecimalObject"): {
                "precision": column.type.precision,
                "scale": column.type.scale,
                "value": f"{value:f}",
            }
        }
    if kind == "varchar":
        return {_named("StringObject"): {"charsetName": "utf8mb4", "value": value}}
    if kind == "datetime":
        assert isinstance(value, datetime)
        return {
            _named("DateTimeObject"): {
                "year": value.year,
                "month": value.month,
                "day": value.day,
                "hours": value.hour,
                "minutes": value.minute,
                "seconds": value.second,
                "nanos": value.microsecond * 1000,
            }
        }
    if kind == "date":
        assert isinstance(value, date)
        return {_named("DateObject"): {"year": value.year, "month": value.month, "day": value.day}}
    return {"string": value}


def _image(table: Table, row: dict[str, Value] | None) -> list[dict[str, Any]] | None:
    if row is None:
        return None
    return [
        {"type_info": DATA_TYPES[column.type.kind], "value": _value(row[column.name], column)}
        for column in table.columns
    ]


# A record's fields after `source` at their defaults: no table, images, SQL or shards.
UNSET_FIELDS: dict[str, Any] = {
    "schemaName": None,
    "tableName": None,
    "fields": None,
    "pkIndexes": None,
    "ukIndexes": None,
    "beforeImages": None,
    "afterImages": None,
    "sql": None,
    "tags": None,
    "total": -1,
    "index": -1,
    "beforeImageBytes": "",
    "afterImageBytes": "",
}


def _timestamp(epoch_ms: int) -> dict[str, int]:
    """`timestamp`: epoch seconds, as its union's long branch."""
    return {"long": epoch_ms // 1000}


def _record(statement: Statement, record_id: int, operation: str, **fields: Any) -> dict[str, Any]:
    """A record with every field in schema order; `fields` are already union-wrapped."""
    return {
        "id": record_id,
        "version": {"int": 1},
        "operation": {_named("Operation"): operation},
        "xid": {"string": f"tx-{statement.seq}"},
        "txind": None,
        "position": {"string": f"{statement.position.file}:{statement.position.offset}"},
        "timestamp": _timestamp(statement.event_ms),
        "source": {_named("Source"): {"sourceType": "OB_MYSQL", "version": "4.2.1"}},
        **UNSET_FIELDS,
        **fields,
    }


def _txind(row: int, rows: int) -> dict[str, str]:
    flag = "W" if rows == 1 else "B" if row == 0 else "E" if row == rows - 1 else "M"
    return {_named("TxindType"): flag}


def image_bytes(image: list[dict[str, Any]] | None) -> bytes:
    """An image array in Avro's binary encoding (what a shard's image bytes are pieces of)."""
    if image is None:
        return b""
    holder = image_holder_schema()
    (record,) = fastavro.json_reader(io.StringIO(dumps({"images": image})), holder)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, holder, record)
    return out.getvalue()


def _latin1(data: bytes) -> str:
    """Avro's JSON encoding of bytes: one character per byte."""
    return data.decode("latin-1")


def _shards(record: dict[str, Any], before: list | None, after: list | None, total: int) -> list[str]:
    before_bytes, after_bytes = image_bytes(before), image_bytes(after)
    pieces = []
    for index in range(total):

        def piece(data: bytes) -> str:
            size = -(-len(data) // total)
            return _latin1(data[index * size : (index + 1) * size])

        pieces.append(
            dumps(
                {
                    **record,
                    "beforeImages": None,
                    "afterImages": None,
                    "total": total,
                    "index": index,
                    "beforeImageBytes": piece(before_bytes),
                    "afterImageBytes": piece(after_bytes),
                }
            )
        )
    return pieces


def encode(statement: Statement) -> list[str]:
    base_id = statement.seq * 1000 + 1
    lines: list[str] = []
    if statement.seq % 25 == 0:
        lines.append(dumps(_record(statement, base_id, "HEARTBEAT", xid=None, position=None)))
    framed = statement.seq % 3 == 0
    if framed:
        lines.append(dumps(_record(statement, base_id + 1, "BEGIN")))
    change = statement.schema_change
    if change is not None:
        lines.append(
            dumps(
                _record(
                    statement,
                    base_id + 2,
                    "DDL",
                    schemaName={"string": change.database},
                    tableName=None if change.table_name is None else {"string": change.table_name},
                    sql={"string": change.sql},
                )
            )
        )
    else:
        table = statement.table
        assert table is not None
        fields = {"array": [{"name": c.name, "dataTypeNumber": TYPE_NUMBERS[c.type.kind]} for c in table.columns]}
        keys = {"array": [table.column_names.index(name) for name in table.key]}
        rows = len(statement.changes)
        sharded = statement.operation == "UPDATE" and statement.seq % 5 == 2
        for row, row_change in enumerate(statement.changes):
            before, after = _image(table, row_change.before), _image(table, row_change.after)
            record = _record(
                statement,
                base_id + 2 + row,
                statement.operation,
                txind=_txind(row, rows),
                schemaName={"string": table.database},
                tableName={"string": table.name},
                fields=fields,
                pkIndexes=keys,
                beforeImages=None if before is None else {"array": before},
                afterImages=None if after is None else {"array": after},
            )
            if sharded:
                lines.extend(_shards(record, before, after, 2 + row % 2))
            else:
                lines.append(dumps(record))
    if framed:
        lines.append(dumps(_record(statement, base_id + 999, "COMMIT")))
    return lines


# ------------------------------------------------------------------- hostile-input rules


OMS_OPERATION = ("operation", "com.oceanbase.oms.avro.Operation")


def _oms_missing(message: Message, path: Path) -> str | None:
    operation = get(message, OMS_OPERATION)
    name = path[0]
    if name == "operation":
        return "missing_event_type"
    if name == "schemaName":
        return "missing_database"
    if operation == "DDL":
        return "missing_sql" if name == "sql" else None
    return {
        "tableName": "missing_table",
        "fields": "missing_fields",
        "afterImages": None if operation == "DELETE" else "missing_row_image",
        "beforeImages": {"DELETE": "missing_row_image", "UPDATE": "missing_old_image"}.get(operation),
    }.get(name)


def _oms_unions(message: Message) -> list[tuple[Path, str]]:
    record = [((name,), "unknown_union_branch") for name in union_fields(AVRO_SCHEMA) if message.get(name) is not None]
    return record + image_value_unions(("beforeImages", "afterImages"), ("value",), "unknown_value_branch")(message)


_null_value = null_in_avro_images(lambda item: {**item, "value": None})

RULES = FormatRules(
    operation=OMS_OPERATION,
    operation_codes=frozenset(enum_symbols(AVRO_SCHEMA, "operation")),
    fields={
        ("id",): frozenset({"integer"}),
        ("total",): frozenset({"integer"}),
        ("index",): frozenset({"integer"}),
        **{(name,): frozenset({"object"}) for name in union_fields(AVRO_SCHEMA)},
    },
    kind=lambda m: "schema_change" if get(m, OMS_OPERATION) == "DDL" else "row_change",
    missing_reason=_oms_missing,
    database=("schemaName", "string"),
    table=("tableName", "string"),
    add_column=add_to_avro_images(
        lambda v: {
            "type_info": "STRING",
            "value": {
                "com.oceanbase.oms.avro.StringObject": {"charsetName": "utf8mb4", "value": v},
            },
        },
        15,
    ),
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=AVRO_MUTATIONS,
    # Control records carry no row; shard records stay in their (intact) sets.
    mutable=lambda m: get(m, OMS_OPERATION) not in ("BEGIN", "COMMIT", "HEARTBEAT") and (m.get("total") or 0) < 1,
    column_name_key="name",
    unions=_oms_unions,
    avro_schema=AVRO_SCHEMA,
    event_time=EventTime(("timestamp",), _timestamp),
    # NULL as the value union's null branch. Never left out: `pkIndexes` names the key's columns
    # by their places, which would then be other columns'.
    null_column=lambda message, column, remove: _null_value(message, column, False),
    container_mutations=(*CONTAINER_MUTATIONS, "invalid_utf8_container"),
)
