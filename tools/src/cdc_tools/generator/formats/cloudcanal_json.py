"""CloudCanal JSON (spec 002): one message per statement, on its own line.

- `action` INSERT/UPDATE/DELETE; for DDL canal's EventType name (CREATE, ALTER, ERASE, RENAME,
  TRUNCATE, CINDEX, DINDEX, QUERY): 002 shows only ALTER, and CloudCanal descends from canal.
- `data`: the new full rows (INSERT/UPDATE) or the deleted rows (DELETE); `before`: the old full
  rows of an UPDATE, else []. Values are JSON strings, NULL is JSON null.
- `db` and `schema` both hold the database; `pks` the key columns once; `dbValType` /
  `jdbcType` every column; `entryType` ROWDATA; `execTs`/`sendTs` epoch ms; `bid` the batch (a redelivery renews it).
- DDL: `isDdl` true, `data`/`before`/`pks` [], `sql` the statement, `table` "" for a
  database-level QUERY, `tableChanges` {table: {columns (0-based position), primaryKeyColumnNames},
  type: CREATE/ALTER/DROP} when the DDL concerns a table definition (not QUERY, TRUNCATE).
"""

from __future__ import annotations

from typing import Any

from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.formats._table_changes import CHANGE_TYPES, table_description
from cdc_tools.generator.formats.canal_json import DDL_TYPES
from cdc_tools.generator.model import Statement
from cdc_tools.generator.mutation_rules import (
    CANAL_DDL,
    CANAL_ROW,
    JSON_MUTATIONS,
    EventTime,
    FormatRules,
    add_to_images,
    canal_missing,
    null_in_images,
    rejected,
)


def _ddl_message(statement: Statement) -> dict[str, Any]:
    change = statement.schema_change
    assert change is not None
    table = change.table
    message: dict[str, Any] = {
        "action": DDL_TYPES[change.kind],
        "before": [],
        "bid": statement.batch,
        "data": [],
        "db": change.database,
        "dbValType": table.mysql_types if table else {},
        "isDdl": True,
        "entryType": "ROWDATA",
        "execTs": statement.event_ms,
        "jdbcType": table.jdbc_types if table else {},
        "pks": [],
        "schema": change.database,
        "sendTs": statement.emitted_ms,
        "sql": change.sql,
        "table": change.table_name or "",
    }
    if change.kind in CHANGE_TYPES:
        message["tableChanges"] = {
            "table": table_description(change, first_position=0),
            "type": CHANGE_TYPES[change.kind],
        }
    return message


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        return [dumps(_ddl_message(statement))]
    table = statement.table
    assert table is not None
    images = statement.images
    before = [b for b, a in images if b is not None and a is not None]
    return [
        dumps(
            {
                "action": statement.operation,
                "before": before,
                "bid": statement.batch,
                "data": [a if a is not None else b for b, a in images],
                "db": table.database,
                "dbValType": table.mysql_types,
                "isDdl": False,
                "entryType": "ROWDATA",
                "execTs": statement.event_ms,
                "jdbcType": table.jdbc_types,
                "pks": list(table.key),
                "schema": table.database,
                "sendTs": statement.emitted_ms,
                "sql": "",
                "table": table.name,
            }
        )
    ]


# ------------------------------------------------------------------- hostile-input rules


RULES = FormatRules(
    operation=("action",),
    operation_codes=frozenset({*CANAL_ROW, *CANAL_DDL, "DROP"}),
    fields={
        ("action",): frozenset({"string"}),
        ("bid",): frozenset({"integer"}),
        ("before",): frozenset({"array"}),
        ("data",): frozenset({"array"}),
        ("db",): frozenset({"string"}),
        ("schema",): frozenset({"string"}),
        ("table",): frozenset({"string"}),
        ("dbValType",): frozenset({"object"}),
        ("jdbcType",): frozenset({"object"}),
        ("entryType",): frozenset({"string"}),
        ("isDdl",): frozenset({"boolean"}),
        ("pks",): frozenset({"array"}),
        ("execTs",): frozenset({"integer"}),
        ("sendTs",): frozenset({"integer"}),
        ("sql",): frozenset({"string"}),
        ("tableChanges",): frozenset({"object"}),
    },
    kind=lambda m: "row_change" if m.get("action") in CANAL_ROW else "schema_change",
    missing_reason=canal_missing("action", "before", ("db", "schema")),
    database=("db",),
    table=("table",),
    add_column=add_to_images("data", "before"),
    blank_line=rejected("empty_line", None),
    batches=True,
    mutations=JSON_MUTATIONS,
    event_time=EventTime(("execTs",), lambda epoch_ms: epoch_ms),
    null_column=null_in_images("data", "before"),
)
