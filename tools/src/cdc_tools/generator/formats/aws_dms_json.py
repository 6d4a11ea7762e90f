"""AWS DMS records on a Kafka target (https://docs.aws.amazon.com/dms/latest/userguide/CHAP_Target.Kafka.html):
one record per row change, one control record per DDL, as a task with IncludeTransactionDetails,
IncludeControlDetails, IncludeTableAlterOperations, IncludeNullAndEmpty and BeforeImageSettings
(ColumnFilter `all`, a MySQL source: every column) writes them.

- `data` the whole row (an update's new row, a delete's old one); an update's `before-image`
  its old row. Numbers are JSON numbers (a decimal keeps its scale), datetimes and dates their
  MySQL text, NULL is null.
- `metadata`: `timestamp` the emit time and `commit-timestamp` the execution time, ISO-8601 with
  microseconds in UTC; `transaction-id` the statement's transaction, `transaction-record-id` the
  row's place in it from 1; `stream-position` (the source's own text: "<file>:<offset>:<row>"
  here) on even statements only, so that odd ones are identified by their transaction ids.
- DDL: create-table, add-column / drop-column / rename-column / column-type-change (an ALTER
  by its statement), rename-table with the table's `table-def` after it (columns by name with
  DMS's type, a decimal's precision and scale, a varchar's length; `primary-key`);
  drop-table and truncate-table with an empty `control`. A control record carries no statement
  and no commit time, only its `timestamp`, when DMS read the DDL from the log: the DDL's
  execution time here (a later emit time would place it after the rows that follow it, which
  DMS reads after it). DMS sends nothing for index and database DDL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Column, SchemaChange, Statement, Table
from cdc_tools.generator.mutation_rules import (
    JSON_MUTATIONS,
    EventTime,
    FormatRules,
    Message,
    Path,
    null_in_images,
    rejected,
)

DDL_KINDS = frozenset({"CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"})
# DMS's control operation for an ALTER TABLE, by the clause its statement holds.
ALTER_OPERATIONS = {
    " DROP COLUMN ": "drop-column",
    " RENAME COLUMN ": "rename-column",
    " MODIFY COLUMN ": "column-type-change",
}
DDL_CARRIES_SQL = False
DDL_CARRIES_EVENT_TIME = False

OPERATIONS = {"INSERT": "insert", "UPDATE": "update", "DELETE": "delete"}
CONTROL_OPERATIONS = {
    "CREATE": "create-table",
    "DROP": "drop-table",
    "TRUNCATE": "truncate-table",
    "RENAME": "rename-table",
}
TYPES = {
    "int": "INT32",
    "bigint": "INT64",
    "decimal": "NUMERIC",
    "varchar": "STRING",
    "text": "CLOB",
    "datetime": "DATETIME",
    "date": "DATE",
}
NUMERIC_KINDS = {"int", "bigint", "decimal"}


def _time(epoch_ms: int) -> str:
    """ISO-8601 with microseconds in UTC, as DMS writes its times."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _value(table: Table, name: str, text: str | None) -> str:
    """A value's canonical text as DMS writes it: a number as a JSON number."""
    if text is None or table.column(name).type.kind not in NUMERIC_KINDS:
        return dumps(text)
    return text


def _row(table: Table, text: dict[str, str | None]) -> str:
    return "{" + ",".join(f"{dumps(name)}:{_value(table, name, text[name])}" for name in table.column_names) + "}"


def _column_definition(column: Column) -> dict[str, Any]:
    """A column of `table-def`: DMS's type, with a decimal's precision and scale or a varchar's
    length, as the user guide's example sends them."""
    sized = {"precision": column.type.precision, "scale": column.type.scale, "length": column.type.length}
    return {
        "type": TYPES[column.type.kind],
        **{name: value for name, value in sized.items() if value is not None},
        "nullable": column.nullable,
    }


def _table_definition(table: Table) -> dict[str, Any]:
    return {
        "columns": {column.name: _column_definition(column) for column in table.columns},
        "primary-key": list(table.key),
    }


def _alter_operation(change: SchemaChange) -> str:
    for clause, operation in ALTER_OPERATIONS.items():
        if clause in change.sql:
            return operation
    return "add-column"


def _control(statement: Statement) -> list[str]:
    change = statement.schema_change
    assert change is not None
    if change.kind not in DDL_KINDS:
        return []
    operation = _alter_operation(change) if change.kind == "ALTER" else CONTROL_OPERATIONS[change.kind]
    control = {} if change.kind in ("DROP", "TRUNCATE") else {"table-def": _table_definition(change.table)}
    metadata = {
        "timestamp": _time(statement.event_ms),
        "record-type": "control",
        "operation": operation,
        "partition-key-type": "task-id",
        "schema-name": change.database,
        "table-name": change.table_name,
    }
    return [dumps({"control": control, "metadata": metadata})]


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        return _control(statement)
    table = statement.table
    assert table is not None
    lines = []
    for row, change in enumerate(statement.changes):
        before, after = statement.images[row]
        metadata: dict[str, Any] = {
            "timestamp": _time(statement.emitted_ms),
            "record-type": "data",
            "operation": OPERATIONS[change.operation],
            "partition-key-type": "schema-table",
            "schema-name": table.database,
            "table-name": table.name,
            "transaction-id": 1000 + statement.seq,
            "transaction-record-id": row + 1,
            "commit-timestamp": _time(statement.event_ms),
        }
        if statement.seq % 2 == 0:
            metadata["stream-position"] = f"{statement.position.file}:{statement.position.offset}:{row}"
        fields = [("data", _row(table, after if after is not None else before))]
        if before is not None and after is not None:
            fields.append(("before-image", _row(table, before)))
        fields.append(("metadata", dumps(metadata)))
        lines.append("{" + ",".join(f"{dumps(name)}:{value}" for name, value in fields) + "}")
    return lines


# ------------------------------------------------------------------- hostile-input rules

TABLE_WIDE_CONTROL = frozenset({"drop-table", "truncate-table"})  # need no `table-def`


def _dms_missing(message: Message, path: Path) -> str | None:
    metadata = message.get("metadata") or {}
    if path in (("metadata",), ("metadata", "operation")):
        return "missing_event_type"
    if path == ("metadata", "record-type"):
        return "unknown_event_type"
    if path == ("metadata", "schema-name"):
        return "missing_database"
    if metadata.get("record-type") == "control":
        is_definition = path in (("control",), ("control", "table-def"))
        return "missing_sql" if is_definition and metadata.get("operation") not in TABLE_WIDE_CONTROL else None
    return {("metadata", "table-name"): "missing_table", ("data",): "missing_row_image"}.get(path)


def _dms_add_column(message: Message, column: str, value: Any) -> None:
    for name in ("data", "before-image"):
        if isinstance(message.get(name), dict):
            message[name][column] = value


RULES = FormatRules(
    # An unknown record type: an unknown control operation is a control record DMS may send.
    operation=("metadata", "record-type"),
    operation_codes=frozenset({"data", "control"}),
    fields={
        ("data",): frozenset({"object"}),
        ("before-image",): frozenset({"object"}),
        ("control",): frozenset({"object"}),
        ("control", "table-def"): frozenset({"object"}),
        ("metadata",): frozenset({"object"}),
        ("metadata", "timestamp"): frozenset({"string"}),
        ("metadata", "record-type"): frozenset({"string"}),
        ("metadata", "operation"): frozenset({"string"}),
        ("metadata", "schema-name"): frozenset({"string"}),
        ("metadata", "table-name"): frozenset({"string"}),
        ("metadata", "transaction-id"): frozenset({"integer"}),
        ("metadata", "transaction-record-id"): frozenset({"integer"}),
        ("metadata", "commit-timestamp"): frozenset({"string"}),
        ("metadata", "stream-position"): frozenset({"string"}),
    },
    kind=lambda m: "schema_change" if (m.get("metadata") or {}).get("record-type") == "control" else "row_change",
    missing_reason=_dms_missing,
    database=("metadata", "schema-name"),
    table=("metadata", "table-name"),
    add_column=_dms_add_column,
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=tuple(m for m in JSON_MUTATIONS if m != "mixed_batch"),
    # A control record has no commit time (its `timestamp` is when DMS read the DDL): left as it is.
    event_time=EventTime(("metadata", "commit-timestamp"), _time),
    null_column=null_in_images("data", "before-image"),
)
