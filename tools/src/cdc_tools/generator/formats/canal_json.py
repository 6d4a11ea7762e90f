"""Canal FlatMessage JSON (spec 000, with 002's field table).

- Values are JSON strings (decimals keep their scale), NULL is JSON null.
- UPDATE: `data` holds the full new rows, `old` per row only the changed columns with their
  old value (a null value = was NULL). DELETE: the deleted rows in `data`, `old` null.
- `pkNames` repeats the key columns once per row; `mysqlType`/`sqlType` cover every column.
- `id` is the statement's batch + 1 (a redelivery renews it); `es` the execution time, `ts` the send time (epoch ms).
- Line shapes vary by `seq`: a bare message, a one-message JSON array (as 000 prints them), or a
  multi-row statement split into one-row messages that share a line as a batch array or take a
  line each.
- DDL: `isDdl` true, `data`/`old`/`pkNames`/`mysqlType`/`sqlType` null, `table` "" for a
  database-level QUERY; types CREATE, ALTER, ERASE, RENAME, TRUNCATE, CINDEX, DINDEX, QUERY.
- Every sixth statement as TiCDC's Canal-JSON with enable-tidb-extension sends it
  (https://docs.pingcap.com/tidb/stable/ticdc-canal-json/): a message a row, a line each, `id` 0,
  `pkNames` once, an UPDATE's `old` the whole old row, `mysqlType` without parameters, `sqlType`
  by TiCDC's table, and `_tidb.commitTs` the statement's TSO: `es` shifted left by 18 bits, its
  `seq` as the logical part (statements of one ms are consecutive, so their TSOs keep their
  order); a DDL is followed by a WATERMARK event at its TSO. No key changes here, so no UPDATE
  is split into a DELETE and an INSERT.
"""

from __future__ import annotations

from typing import Any

from cdc_tools.generator.formats._json import dumps
from cdc_tools.generator.model import Statement, Table
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

DDL_TYPES = {
    "CREATE": "CREATE",
    "ALTER": "ALTER",
    "DROP": "ERASE",
    "RENAME": "RENAME",
    "TRUNCATE": "TRUNCATE",
    "CREATE_INDEX": "CINDEX",
    "DROP_INDEX": "DINDEX",
    "QUERY": "QUERY",
}


# TiCDC's sqlType of a MySQL type (its document's table: TEXT is a CLOB).
TICDC_SQL_TYPES = {"int": 4, "bigint": -5, "decimal": 3, "varchar": 12, "text": 2005, "datetime": 93, "date": 91}
TIDB_WATERMARK = "TIDB_WATERMARK"


def _is_ticdc(statement: Statement) -> bool:
    return statement.seq % 6 == 2


def _tso(statement: Statement) -> int:
    """The statement's commit TSO: its time in ms above 18 logical bits (the same in a re-send)."""
    return statement.event_ms << 18 | statement.seq % (1 << 18)


def _ticdc_message(statement: Statement, table: Table, row: int) -> dict[str, Any]:
    before, after = statement.images[row]
    return {
        "id": 0,
        "database": table.database,
        "table": table.name,
        "pkNames": list(table.key),
        "isDdl": False,
        "type": statement.operation,
        "es": statement.event_ms,
        "ts": statement.emitted_ms,
        "sql": "",
        "sqlType": {column.name: TICDC_SQL_TYPES[column.type.kind] for column in table.columns},
        "mysqlType": {column.name: column.type.kind for column in table.columns},
        "data": [after if after is not None else before],
        "old": [before] if statement.operation == "UPDATE" else None,
        "_tidb": {"commitTs": _tso(statement)},
    }


def _watermark(statement: Statement) -> dict[str, Any]:
    """TiCDC's WATERMARK event: every change committed before its TSO was sent."""
    return {
        "id": 0,
        "database": "",
        "table": "",
        "pkNames": None,
        "isDdl": False,
        "type": TIDB_WATERMARK,
        "es": statement.event_ms,
        "ts": statement.emitted_ms,
        "sql": "",
        "sqlType": None,
        "mysqlType": None,
        "data": None,
        "old": None,
        "_tidb": {"watermarkTs": _tso(statement)},
    }


def _message(statement: Statement, table: Table, rows: range) -> dict[str, Any]:
    """One FlatMessage for the statement's row changes at `rows`."""
    data, old = [], []
    for row in rows:
        before, after = statement.images[row]
        data.append(after if after is not None else before)
        if before is not None and after is not None:
            old.append({name: before[name] for name in statement.changes[row].changed_columns})
    return {
        "data": data,
        "database": table.database,
        "es": statement.event_ms,
        "id": statement.batch + 1,
        "isDdl": False,
        "mysqlType": table.mysql_types,
        "old": old if statement.operation == "UPDATE" else None,
        "pkNames": list(table.key) * len(rows),
        "sql": "",
        "sqlType": table.jdbc_types,
        "table": table.name,
        "ts": statement.emitted_ms,
        "type": statement.operation,
    }


def _ddl_message(statement: Statement) -> dict[str, Any]:
    change = statement.schema_change
    assert change is not None
    return {
        "data": None,
        "database": change.database,
        "es": statement.event_ms,
        "id": statement.batch + 1,
        "isDdl": True,
        "mysqlType": None,
        "old": None,
        "pkNames": None,
        "sql": change.sql,
        "sqlType": None,
        "table": change.table_name or "",
        "ts": statement.emitted_ms,
        "type": DDL_TYPES[change.kind],
    }


def encode(statement: Statement) -> list[str]:
    if statement.schema_change is not None:
        message = _ddl_message(statement)
        if _is_ticdc(statement):
            return [dumps({**message, "id": 0, "_tidb": {"commitTs": _tso(statement)}}), dumps(_watermark(statement))]
        return [dumps([message] if statement.seq % 2 == 0 else message)]
    table = statement.table
    assert table is not None
    if _is_ticdc(statement):
        return [dumps(_ticdc_message(statement, table, row)) for row in range(len(statement.changes))]
    count = len(statement.changes)
    shape = statement.seq % 4
    if count > 1 and shape in (0, 1):
        messages = [_message(statement, table, range(row, row + 1)) for row in range(count)]
        return [dumps(messages)] if shape == 0 else [dumps(message) for message in messages]
    message = _message(statement, table, range(count))
    return [dumps([message] if shape == 2 else message)]


# ------------------------------------------------------------------- hostile-input rules


RULES = FormatRules(
    operation=("type",),
    operation_codes=frozenset({*CANAL_ROW, *CANAL_DDL, "GTID", "XACOMMIT", "XAROLLBACK", "MHEARTBEAT", TIDB_WATERMARK}),
    fields={
        ("id",): frozenset({"integer"}),
        ("database",): frozenset({"string"}),
        ("table",): frozenset({"string"}),
        ("pkNames",): frozenset({"array"}),
        ("isDdl",): frozenset({"boolean"}),
        ("type",): frozenset({"string"}),
        ("es",): frozenset({"integer"}),
        ("ts",): frozenset({"integer"}),
        ("sql",): frozenset({"string"}),
        ("sqlType",): frozenset({"object"}),
        ("mysqlType",): frozenset({"object"}),
        ("data",): frozenset({"array"}),
        ("old",): frozenset({"array"}),
        ("tableChanges",): frozenset({"object"}),
        ("_tidb",): frozenset({"object"}),
        ("_tidb", "commitTs"): frozenset({"integer"}),
    },
    kind=lambda m: "row_change" if m.get("type") in CANAL_ROW else "schema_change",
    missing_reason=canal_missing("type", "old", ("database",)),
    database=("database",),
    table=("table",),
    add_column=add_to_images("data", "old"),
    blank_line=rejected("empty_line", None),
    batches=True,
    mutations=(*JSON_MUTATIONS, "value_too_large"),
    # A watermark is skipped before the checks a mutant of it would expect.
    mutable=lambda message: message.get("type") != TIDB_WATERMARK,
    event_time=EventTime(("es",), lambda epoch_ms: epoch_ms, read_here=lambda message: "_tidb" not in message),
    null_column=null_in_images("data", "old"),
)
