"""KafkaRiverCanal GSON (spec 003): one message per row; no DDL (the format has none).

- `binlog` "<offset>@<file>" (every row of a statement shares its event's position), `time`
  the execution time and `canalTime` the send time (epoch ms), `event` i/u/d, `keys` the key
  columns, `columns` every column in table order as {n, t, v, null}.
- GSON leaves out null fields: a NULL value has no `v` ("null": true).
- UPDATE columns add `updated`, and an updated column its old value as `origin_val`, which is
  absent when the old value was NULL. INSERT/DELETE columns carry no `updated` (003: "always
  true, so omitted").
"""

from __future__ import annotations

from typing import Any

from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Statement, Table
from cdc_tools.generator.mutation_rules import JSON_MUTATIONS, EventTime, FormatRules, Message, Path, rejected

DDL_KINDS: frozenset[str] = frozenset()  # it sends no DDL

EVENTS = {"INSERT": "i", "UPDATE": "u", "DELETE": "d"}


def _columns(table: Table, statement: Statement, row: int) -> list[dict[str, Any]]:
    before, after = statement.images[row]
    image = after if after is not None else before
    assert image is not None
    if after is None:
        before = None  # a delete's row is its only image
    changed = set(statement.changes[row].changed_columns)
    columns = []
    for column in table.columns:
        value = image[column.name]
        entry: dict[str, Any] = {"n": column.name, "t": column.type.mysql_type}
        if value is not None:
            entry["v"] = value
        if before is not None and column.name in changed and before[column.name] is not None:
            entry["origin_val"] = before[column.name]
        entry["null"] = value is None
        if before is not None:
            entry["updated"] = column.name in changed
        columns.append(entry)
    return columns


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        return []
    table = statement.table
    assert table is not None
    binlog = f"{statement.position.offset}@{statement.position.file}"
    return [
        dumps(
            {
                "binlog": binlog,
                "time": statement.event_ms,
                "canalTime": statement.emitted_ms,
                "db": table.database,
                "table": table.name,
                "event": EVENTS[change.operation],
                "columns": _columns(table, statement, row),
                "keys": list(table.key),
            }
        )
        for row, change in enumerate(statement.changes)
    ]


# ------------------------------------------------------------------- hostile-input rules


def _kafka_river_missing(message: Message, path: Path) -> str | None:
    return {
        ("event",): "missing_event_type",
        ("db",): "missing_database",
        ("table",): "missing_table",
        ("columns",): "missing_row_image",
    }.get(path)


def _kafka_river_add_column(message: Message, column: str, value: Any) -> None:
    entry: dict[str, Any] = {"n": column, "t": "varchar(255)", "v": value, "null": False}
    if message.get("event") == "u":
        entry["updated"] = False
    message["columns"].append(entry)


def _kafka_river_null_column(message: Message, column: str, remove: bool) -> None:
    """GSON's NULL: no `v`, `null` true (and no old value: a key column is never updated)."""
    if remove:
        message["columns"] = [entry for entry in message["columns"] if entry.get("n") != column]
        return
    for entry in message["columns"]:
        if entry.get("n") == column:
            entry.pop("v", None)
            entry["null"] = True


RULES = FormatRules(
    operation=("event",),
    operation_codes=frozenset({"i", "u", "d"}),
    fields={
        ("binlog",): frozenset({"string"}),
        ("time",): frozenset({"integer"}),
        ("canalTime",): frozenset({"integer"}),
        ("db",): frozenset({"string"}),
        ("table",): frozenset({"string"}),
        ("event",): frozenset({"string"}),
        ("columns",): frozenset({"array"}),
        ("keys",): frozenset({"array"}),
    },
    kind=lambda m: "row_change",
    missing_reason=_kafka_river_missing,
    database=("db",),
    table=("table",),
    add_column=_kafka_river_add_column,
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=tuple(m for m in JSON_MUTATIONS if m != "mixed_batch"),
    column_name_key="n",
    event_time=EventTime(("time",), lambda epoch_ms: epoch_ms),
    null_column=_kafka_river_null_column,
)
