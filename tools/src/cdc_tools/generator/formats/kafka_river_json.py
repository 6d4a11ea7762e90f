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

NAME = "kafka_river_json"
CARRIES_DDL = False

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
