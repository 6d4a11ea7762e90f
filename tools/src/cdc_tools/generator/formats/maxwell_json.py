"""Maxwell's daemon JSON (https://maxwells-daemon.io/dataformat/): one message per row or DDL.

- `type` insert/update/delete; `ts` the execution time in epoch seconds (a DDL's in milliseconds:
  the seconds with 000 appended, as Maxwell writes them); no emit time.
- `xid` the statement's transaction, `xoffset` a row's place in it, except on the last row,
  which carries `commit` instead; `position` the statement's binlog "<file>:<offset>".
- `primary_key_columns` on even statements only: the others' keys come from the DDL's `def`.
- `data` the whole row (an update's new row, a delete's old one), `old` an update's changed
  columns with their old values. Numbers are JSON numbers (a decimal keeps its scale),
  datetimes and dates their MySQL text, NULL is null.
- DDL (`--output_ddl`): table-create with `def` (columns and `primary-key`), table-alter with
  the `def` after it (RENAME TABLE too: Maxwell parses it as an alter, `table` the old name),
  table-drop, database-create; `sql` the statement. Maxwell sends nothing for TRUNCATE and index DDL.
"""

from __future__ import annotations

from typing import Any

from cdc_tools.generator.formats._json import dumps, json_object, json_value
from cdc_tools.generator.model import Statement, Table
from cdc_tools.generator.mutation_rules import (
    JSON_MUTATIONS,
    EventTime,
    FormatRules,
    Message,
    Path,
    null_in_images,
    rejected,
)

DDL_KINDS = frozenset({"CREATE", "ALTER", "DROP", "RENAME", "QUERY"})
EVENT_TIME_RESOLUTION_MS = 1000
CARRIES_EMIT_TIME = False

ROW_TYPES = {"INSERT": "insert", "UPDATE": "update", "DELETE": "delete"}
DDL_TYPES = {
    "CREATE": "table-create",
    "ALTER": "table-alter",
    "RENAME": "table-alter",
    "DROP": "table-drop",
    "QUERY": "database-create",
}


def _seconds(epoch_ms: int) -> int:
    """A row's `ts`: epoch seconds."""
    return epoch_ms // 1000


def _row(table: Table, text: dict[str, str | None], columns: tuple[str, ...]) -> str:
    return json_object([(name, json_value(table, name, text[name])) for name in columns])


def _definition(table: Table) -> dict[str, Any]:
    return {
        "database": table.database,
        "charset": "utf8mb4",
        "table": table.name,
        "columns": [{"type": column.type.kind, "name": column.name} for column in table.columns],
        "primary-key": list(table.key),
    }


def _ddl(statement: Statement) -> list[str]:
    change = statement.schema_change
    assert change is not None
    if change.kind not in DDL_KINDS:
        return []
    message: dict[str, Any] = {"type": DDL_TYPES[change.kind], "database": change.database}
    if change.table_name is not None:
        # A rename's `table` is the old name (Maxwell's own); its `def` names the new one.
        message["table"] = change.previous_table_name or change.table_name
    if change.kind in ("CREATE", "ALTER", "RENAME"):
        assert change.table is not None
        message["def"] = _definition(change.table)
    message |= {
        "ts": _seconds(statement.event_ms) * 1000,
        "sql": change.sql,
        "position": f"{statement.position.file}:{statement.position.offset}",
    }
    return [dumps(message)]


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        return _ddl(statement)
    table = statement.table
    assert table is not None
    rows = len(statement.changes)
    lines = []
    for row, change in enumerate(statement.changes):
        before, after = statement.images[row]
        fields = [
            ("database", dumps(table.database)),
            ("table", dumps(table.name)),
            ("type", dumps(ROW_TYPES[change.operation])),
            ("ts", str(_seconds(statement.event_ms))),
            ("xid", str(1000 + statement.seq)),
            ("commit", "true") if row == rows - 1 else ("xoffset", str(row)),
            ("position", dumps(f"{statement.position.file}:{statement.position.offset}")),
        ]
        if statement.seq % 2 == 0:
            fields.append(("primary_key_columns", dumps(list(table.key))))
        fields.append(("data", _row(table, after if after is not None else before, table.column_names)))
        if before is not None and after is not None:
            fields.append(("old", _row(table, before, change.changed_columns)))
        lines.append(json_object(fields))
    return lines


# ------------------------------------------------------------------- hostile-input rules

ROW_TYPE_NAMES = frozenset({"insert", "update", "delete", "bootstrap-insert"})


def _maxwell_missing(message: Message, path: Path) -> str | None:
    name = path[0]
    if name == "type":
        return "missing_event_type"
    if name == "database":
        return "missing_database"
    if message.get("type") not in ROW_TYPE_NAMES:
        return "missing_sql" if name == "sql" and not message.get("def") else None
    return {
        "table": "missing_table",
        "data": "missing_row_image",
        "old": "missing_old_image" if message.get("type") == "update" else None,
    }.get(name)


def _maxwell_add_column(message: Message, column: str, value: Any) -> None:
    if isinstance(message.get("data"), dict):
        message["data"][column] = value


def _maxwell_rename(message: Message, database: str, table: str) -> None:
    """A DDL's `def` names its table too, and first (a rename's `table` is the old name)."""
    if isinstance(message.get("def"), dict) and message["def"].get("table"):
        message["def"] |= {"database": database, "table": table}


RULES = FormatRules(
    operation=("type",),
    operation_codes=frozenset(
        {
            *ROW_TYPE_NAMES,
            *DDL_TYPES.values(),
            "database-alter",
            "database-drop",
            "bootstrap-start",
            "bootstrap-complete",
        }
    ),
    fields={
        ("database",): frozenset({"string"}),
        ("table",): frozenset({"string"}),
        ("type",): frozenset({"string"}),
        ("ts",): frozenset({"integer"}),
        ("xid",): frozenset({"integer"}),
        ("xoffset",): frozenset({"integer"}),
        ("commit",): frozenset({"boolean"}),
        ("position",): frozenset({"string"}),
        ("primary_key_columns",): frozenset({"array"}),
        ("data",): frozenset({"object"}),
        ("old",): frozenset({"object"}),
        ("sql",): frozenset({"string"}),
        ("def",): frozenset({"object"}),
    },
    kind=lambda m: "row_change" if m.get("type") in ROW_TYPE_NAMES else "schema_change",
    missing_reason=_maxwell_missing,
    database=("database",),
    table=("table",),
    add_column=_maxwell_add_column,
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=(*(m for m in JSON_MUTATIONS if m != "mixed_batch"), "value_too_large"),
    # In seconds, as a row's: the staging reads an epoch's unit by its magnitude.
    event_time=EventTime(("ts",), _seconds),
    null_column=null_in_images("data", "old"),
    rename_table=_maxwell_rename,
)
