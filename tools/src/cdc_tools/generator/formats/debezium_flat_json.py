"""Debezium after its ExtractNewRecordState transform (Debezium's "New Record State Extraction",
https://debezium.io/documentation/reference/stable/transformations/event-flattening.html): the
change events of the debezium_json encoder, flattened as a connector configured with

    transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState
    transforms.unwrap.add.fields=op,db,table,source.ts_ms,ts_ms,source.file,source.pos,source.row
    transforms.unwrap.delete.handling.mode=rewrite

sends them: one message per row, the row itself (an insert's or update's `after`, a delete's
`before`) with the metadata fields `__op`, `__db`, `__table`, `__source_ts_ms` (the execution
time), `__ts_ms` (the send time), `__source_file`, `__source_pos`, `__source_row` and
`__deleted` ("true" for a delete, else "false"). No before image: an update's old row is gone.
With `schema` (even statements, as debezium_json's) the value's schema is the row's fields and
the metadata fields'. No DDL: schema changes stay on the connector's schema change topic (landed
as debezium_json); rewrite drops the tombstones.
"""

from __future__ import annotations

import json
from typing import Any

from cdc_tools.generator.formats import debezium_json
from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Statement
from cdc_tools.generator.mutation_rules import JSON_MUTATIONS, EventTime, FormatRules, Message, Path

DDL_KINDS: frozenset[str] = frozenset()  # it sends no DDL
CARRIES_OLD_IMAGES = False

# (added field, where the envelope holds it) in `add.fields` order.
ADDED_FIELDS = (
    ("__op", ("op",)),
    ("__db", ("source", "db")),
    ("__table", ("source", "table")),
    ("__source_ts_ms", ("source", "ts_ms")),
    ("__ts_ms", ("ts_ms",)),
    ("__source_file", ("source", "file")),
    ("__source_pos", ("source", "pos")),
    ("__source_row", ("source", "row")),
)
DELETED_SCHEMA = {"type": "string", "optional": True, "field": "__deleted"}


def _field_schema(envelope_schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """The schema of an envelope field (`op`) or of a field of one of its structs (`source.db`)."""
    fields = envelope_schema["fields"]
    for name in path[:-1]:
        fields = next(field for field in fields if field["field"] == name)["fields"]
    return next(field for field in fields if field["field"] == path[-1])


def _flattened(value: dict[str, Any]) -> dict[str, Any]:
    """A Debezium change event value as ExtractNewRecordState gives it (see the module's doc)."""
    payload = value["payload"] if "schema" in value else value
    deleted = payload["op"] == "d"
    flat = dict(payload["before"] if deleted else payload["after"])
    for name, path in ADDED_FIELDS:
        flat[name] = payload[path[0]] if len(path) == 1 else payload[path[0]][path[1]]
    flat["__deleted"] = "true" if deleted else "false"
    if "schema" not in value:
        return flat
    envelope = value["schema"]
    row = _field_schema(envelope, ("before",))
    added = [{**_field_schema(envelope, path), "field": name} for name, path in ADDED_FIELDS]
    schema = {
        "type": "struct",
        "name": row["name"],
        "optional": False,
        "fields": [*row["fields"], *added, DELETED_SCHEMA],
    }
    return {"schema": schema, "payload": flat}


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        return []
    return [dumps(_flattened(json.loads(line))) for line in debezium_json.encode(statement)]


# ------------------------------------------------------------------- hostile-input rules


def _flat_root(message: Message) -> Message:
    """A wrapped value's payload, else the value (a bare row may have a `payload` column)."""
    wrapped = isinstance(message.get("schema"), dict) and isinstance(message.get("payload"), dict)
    return message["payload"] if wrapped else message


def _flat_missing(message: Message, path: Path) -> str | None:
    if path == ("__op",):  # `__deleted` still tells a delete
        return None if _flat_root(message).get("__deleted") == "true" else "missing_event_type"
    return {("__db",): "missing_database", ("__table",): "missing_table"}.get(path)


def _flat_add_column(message: Message, column: str, value: Any) -> None:
    _flat_root(message)[column] = value


def _flat_null_column(message: Message, column: str, remove: bool) -> None:
    row = _flat_root(message)
    if column in row and remove:
        del row[column]
    elif column in row:
        row[column] = None


RULES = FormatRules(
    operation=("__op",),
    operation_codes=frozenset({"c", "r", "u", "d"}),
    fields={
        ("__op",): frozenset({"string"}),
        ("__deleted",): frozenset({"string"}),
        ("__db",): frozenset({"string"}),
        ("__table",): frozenset({"string"}),
        ("__source_ts_ms",): frozenset({"integer"}),
        ("__ts_ms",): frozenset({"integer"}),
        ("__source_file",): frozenset({"string"}),
        ("__source_pos",): frozenset({"integer"}),
        ("__source_row",): frozenset({"integer"}),
    },
    kind=lambda m: "row_change",
    missing_reason=_flat_missing,
    database=("__db",),
    table=("__table",),
    add_column=_flat_add_column,
    blank_line={0: frozenset({("skipped", "tombstone")})},
    batches=False,
    mutations=tuple(m for m in JSON_MUTATIONS if m != "mixed_batch"),
    root=_flat_root,
    event_time=EventTime(("__source_ts_ms",), lambda epoch_ms: epoch_ms),
    null_column=_flat_null_column,
)
