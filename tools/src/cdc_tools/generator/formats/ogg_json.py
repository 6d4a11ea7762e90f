"""Oracle GoldenGate for Big Data's JSON formatter, operation modeled (the Kafka handler's
`format=json`, https://docs.oracle.com/en/middleware/goldengate/big-data/19.1/gadbd/pluggable-formatters.html):
one message per row operation of the trail.

- `table` "<schema>.<table>" (the database is the schema), `op_type` I/U/D, or T for a TRUNCATE,
  which carries no statement: the formatter sends no other DDL (a table's changed definition
  shows in its next operations only).
- `op_ts` the operation's commit time and `current_ts` when the formatter wrote it, both
  "YYYY-MM-DD HH:MM:SS.ffffff" without a zone (UTC here); `current_ts` with a T between date and
  time, as by default (`iso8601Format`), except on even statements.
- `pos` the trail position: the trail file's sequence number (the binlog file's number here) and
  the record's offset (RBA) in it, ten digits each; each row of a statement is a record of its own.
- `primary_keys` (`includePrimaryKeys`) on every message, since nothing else names the keys.
- `before` an update's or delete's old row, `after` an insert's or update's new row. Numbers are
  JSON numbers (a decimal keeps its scale), except on even statements, where every value is a
  string (`treatAllColumnsAsStrings`); an update's `before` holds only the key and the changed
  columns (compressed) on every third statement. `after` is always the full row, so the facts
  equal the logical stream's.
"""

from __future__ import annotations

from datetime import UTC, datetime
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

DDL_KINDS = frozenset({"TRUNCATE"})
DDL_CARRIES_SQL = False

OP_TYPES = {"INSERT": "I", "UPDATE": "U", "DELETE": "D"}


def _time(epoch_ms: int, separator: str = " ") -> str:
    moment = datetime.fromtimestamp(epoch_ms // 1000, UTC).replace(microsecond=epoch_ms % 1000 * 1000)
    return moment.strftime(f"%Y-%m-%d{separator}%H:%M:%S.%f")


def _position(statement: Statement, row: int) -> str:
    sequence = int(statement.position.file.rsplit(".", 1)[1])
    return f"{sequence:010d}{statement.position.offset + row:010d}"


def _image(table: Table, text: dict[str, str | None], columns: tuple[str, ...], as_strings: bool) -> str:
    """A number as a JSON number, unless every value is sent as a string."""
    return json_object(
        [(name, dumps(text[name]) if as_strings else json_value(table, name, text[name])) for name in columns]
    )


def _header(statement: Statement, table: str, op_type: str, row: int) -> list[tuple[str, str]]:
    separator = " " if statement.seq % 2 == 0 else "T"
    return [
        ("table", dumps(table)),
        ("op_type", dumps(op_type)),
        ("op_ts", dumps(_time(statement.event_ms))),
        ("current_ts", dumps(_time(statement.emitted_ms, separator))),
        ("pos", dumps(_position(statement, row))),
    ]


def encode(statement: Statement) -> list[str]:
    ddl = statement.schema_change
    if ddl is not None:
        if ddl.kind not in DDL_KINDS:
            return []
        return [json_object(_header(statement, f"{ddl.database}.{ddl.table_name}", "T", 0))]
    table = statement.table
    assert table is not None
    as_strings = statement.seq % 2 == 0
    lines = []
    for row, change in enumerate(statement.changes):
        before, after = statement.images[row]
        fields = _header(statement, f"{table.database}.{table.name}", OP_TYPES[change.operation], row)
        fields.append(("primary_keys", dumps(list(table.key))))
        if before is not None:
            compressed = after is not None and statement.seq % 3 == 0
            columns = (*table.key, *change.changed_columns) if compressed else table.column_names
            fields.append(("before", _image(table, before, tuple(dict.fromkeys(columns)), as_strings)))
        if after is not None:
            fields.append(("after", _image(table, after, table.column_names, as_strings)))
        lines.append(json_object(fields))
    return lines


# ------------------------------------------------------------------- hostile-input rules


def _ogg_missing(message: Message, path: Path) -> str | None:
    name = path[0]
    if name == "op_type":
        return "missing_event_type"
    if name == "table":
        return "missing_database"
    op_type = message.get("op_type")
    if name == "after" and op_type in ("I", "U"):
        return "missing_row_image"
    if name == "before" and op_type == "D":
        return "missing_row_image"
    return None  # times, position and keys are optional; an update's old image too


def _ogg_add_column(message: Message, column: str, value: Any) -> None:
    for name in ("before", "after"):
        if isinstance(message.get(name), dict):
            message[name][column] = value


RULES = FormatRules(
    operation=("op_type",),
    operation_codes=frozenset({*OP_TYPES.values(), "T"}),
    fields={
        ("table",): frozenset({"string"}),
        ("op_type",): frozenset({"string"}),
        ("op_ts",): frozenset({"string"}),
        ("current_ts",): frozenset({"string"}),
        ("pos",): frozenset({"string"}),
        ("primary_keys",): frozenset({"array"}),
        ("before",): frozenset({"object"}),
        ("after",): frozenset({"object"}),
    },
    kind=lambda m: "schema_change" if m.get("op_type") == "T" else "row_change",
    missing_reason=_ogg_missing,
    database=("table",),
    table=("table",),
    add_column=_ogg_add_column,
    blank_line=rejected("empty_line", None),
    batches=False,
    mutations=tuple(m for m in JSON_MUTATIONS if m != "mixed_batch"),
    object_name=("table",),
    event_time=EventTime(("op_ts",), _time),
    null_column=null_in_images("before", "after"),
)
