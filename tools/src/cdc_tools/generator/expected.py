"""The row changes and schema changes a statement must give in the facts, derived from the
logical stream alone (never from an encoder's output).

A row change: operation, database, table, primary_key (canonical JSON of the key columns in key
order, values as text, e.g. {"order_id":"1001","line_no":"1"}), before_image / after_image
(column -> canonical text or null; before null for INSERT, after null for DELETE),
changed_columns (sorted), event_at_ms / emitted_at_ms (epoch ms) and the statement's seq.
A schema change: database, table (null for a database-level QUERY), ddl_kind, sql,
event_at_ms, emitted_at_ms, statement.
"""

from __future__ import annotations

import json
from typing import Any

from cdc_tools.generator.model import Statement


def primary_key_json(key: dict[str, str | None]) -> str:
    """Spark's to_json of the key map: compact, unicode as is."""
    return json.dumps(key, ensure_ascii=False, separators=(",", ":"))


def expected_row_changes(statement: Statement) -> list[dict[str, Any]]:
    table = statement.table
    if statement.schema_change is not None or table is None:
        return []
    rows = []
    for change, (before, after) in zip(statement.changes, statement.images, strict=True):
        image = after if after is not None else before
        assert image is not None
        rows.append(
            {
                "operation": change.operation,
                "database": table.database,
                "table": table.name,
                "primary_key": primary_key_json({name: image[name] for name in table.key}),
                "before_image": before,
                "after_image": after,
                "changed_columns": sorted(change.changed_columns),
                "event_at_ms": statement.event_ms,
                "emitted_at_ms": statement.emitted_ms,
                "statement": statement.seq,
            }
        )
    return rows


def expected_schema_changes(statement: Statement) -> list[dict[str, Any]]:
    change = statement.schema_change
    if change is None:
        return []
    return [
        {
            "database": change.database,
            "table": change.table_name,
            "ddl_kind": change.kind,
            "sql": change.sql,
            "event_at_ms": statement.event_ms,
            "emitted_at_ms": statement.emitted_ms,
            "statement": statement.seq,
        }
    ]
