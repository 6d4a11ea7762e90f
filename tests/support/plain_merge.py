"""Replicas kept by hand: the generator's logical stream applied to Delta tables with plain MERGE
and ALTER TABLE statements, as an engineer would write them without this project. The
equivalence test compares the project's replicas with these tables, an independent check of
their MERGE (Spark's AUTO CDC flows would be another: docs/replicas.md says why they are not).

Each source table is a Delta table at a path of its own, created with column mapping (for
RENAME and DROP COLUMN) and type widening (on Delta 3.3, which cannot widen int or decimal
columns, a widened table is copied into a new one). A load is the DML between two DDL
statements: a MERGE per table whose source holds every change of the load, of which each key's
last in the binlog's order wins (as AUTO CDC's `sequence_by`); an update that changes a row's
key deletes the old key. Values are the generator's canonical text cast to the column's Spark
type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyspark

from cdc_tools.generator.model import Column, ColumnType, Row, Statement, Table
from cdc_tools.spark_sql import string_literal

# Delta 4 (Spark 4) widens int and decimal columns in place; Delta 3.3 (Spark 3.5) does not.
DELTA_WIDENS_IN_PLACE = int(pyspark.__version__.split(".")[0]) >= 4

SPARK_TYPES = {
    "int": "int",
    "bigint": "bigint",
    "varchar": "string",
    "text": "string",
    "datetime": "timestamp",
    "date": "date",
}
PROPERTIES = "'delta.columnMapping.mode' = 'name', 'delta.enableTypeWidening' = 'true'"
RENAME_TABLE = re.compile(r"RENAME TABLE `(.+)` TO `(.+)`")


def spark_type(column_type: ColumnType) -> str:
    """The Spark type of a generated column type, as the project's replicas type it."""
    if column_type.kind == "decimal":
        return f"decimal({column_type.precision},{column_type.scale})"
    return SPARK_TYPES[column_type.kind]


def _name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _text(text: str | None, column: Column) -> str:
    if text is None:
        return f"cast(null as {spark_type(column.type)})"
    return f"cast({string_literal(text)} as {spark_type(column.type)})"


class PlainMergeReplicas:
    """The tables as the stream leaves them, by (database, table): each one's Delta path and
    definition. `statements` gives the SQL that makes them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tables: dict[tuple[str, str], tuple[str, Table]] = {}
        self.made = 0  # tables made, for their paths

    def statements(self, stream: Iterable[Statement]) -> Iterator[str]:
        load: dict[tuple[str, str], list[str]] = {}
        for order, statement in enumerate(stream):  # the binlog's order
            if statement.schema_change is not None:
                yield from (self._merge(table_id, rows) for table_id, rows in load.items())
                load.clear()
                yield from self._ddl(statement)
                continue
            table = statement.table
            assert table is not None
            load.setdefault((table.database, table.name), []).extend(self._source_rows(order, statement, table))
        yield from (self._merge(table_id, rows) for table_id, rows in load.items())

    def _source_rows(self, order: int, statement: Statement, table: Table) -> Iterator[str]:
        """A VALUES row per key a change leaves: (sequence, deleted, the row's columns)."""
        for index, change in enumerate(statement.changes):
            sequence = order * 10_000 + index
            if change.before is not None and (
                change.after is None or _key(table, change.before) != _key(table, change.after)
            ):
                yield self._row(sequence, True, table, change.before)
            if change.after is not None:
                yield self._row(sequence, False, table, change.after)

    @staticmethod
    def _row(sequence: int, deleted: bool, table: Table, row: Row) -> str:
        texts = table.row_text(row)
        values = [_text(texts[column.name], column) for column in table.columns]
        return f"({sequence}, {str(deleted).lower()}, {', '.join(values)})"

    def _merge(self, table_id: tuple[str, str], rows: list[str]) -> str:
        path, table = self.tables[table_id]
        columns = [_name(name) for name in table.column_names]
        keys = [_name(name) for name in table.key]
        return f"""
            merge into delta.`{path}` as target
            using (
                select * from (
                    select *, row_number() over (partition by {", ".join(keys)} order by _sequence desc) as _nth
                    from values {", ".join(rows)} as changes(_sequence, _deleted, {", ".join(columns)})
                ) where _nth = 1
            ) as source
            on {" and ".join(f"target.{key} = source.{key}" for key in keys)}
            when matched and source._deleted then delete
            when matched then update set {", ".join(f"target.{c} = source.{c}" for c in columns)}
            when not matched and not source._deleted then
                insert ({", ".join(columns)}) values ({", ".join(f"source.{c}" for c in columns)})
        """

    def _ddl(self, statement: Statement) -> Iterator[str]:
        change = statement.schema_change
        assert change is not None
        table_id = (change.database, change.table_name or "")
        if change.kind == "CREATE" and change.table is not None:
            path = self._new_path(change.table)
            self.tables[table_id] = (path, change.table)
            columns = ", ".join(f"{_name(c.name)} {spark_type(c.type)}" for c in change.table.columns)
            yield f"create table delta.`{path}` ({columns}) using delta tblproperties ({PROPERTIES})"
        elif change.kind == "DROP":
            del self.tables[table_id]
        elif change.kind == "TRUNCATE":
            yield f"delete from delta.`{self.tables[table_id][0]}`"
        elif change.kind == "RENAME":
            old_name, new_name = RENAME_TABLE.fullmatch(change.sql).groups()
            self.tables[(change.database, new_name)] = self.tables.pop((change.database, old_name))
        elif change.kind == "ALTER" and change.table is not None:
            path, before = self.tables[table_id]
            if before.column_names == change.table.column_names and not DELTA_WIDENS_IN_PLACE:
                # A type Delta cannot widen: the rows copied, cast, into a table of the new types.
                path, columns = self._new_path(change.table), change.table.columns
                cast = ", ".join(f"cast({_name(c.name)} as {spark_type(c.type)}) as {_name(c.name)}" for c in columns)
                select = f"select {cast} from delta.`{self.tables[table_id][0]}`"
                yield f"create table delta.`{path}` using delta tblproperties ({PROPERTIES}) as {select}"
            else:
                yield from (f"alter table delta.`{path}` {clause}" for clause in _alter(before, change.table))
            self.tables[table_id] = (path, change.table)

    def _new_path(self, table: Table) -> str:
        self.made += 1
        return str(self.root / f"{self.made}_{table.database}_{table.name}")


def _key(table: Table, row: Row) -> tuple:
    return tuple(row[name] for name in table.key)


def _alter(before: Table, after: Table) -> Iterator[str]:
    """The ALTER TABLE clauses from one definition to the next (the generator changes one column
    per statement): a column added, dropped, renamed or widened."""
    old, new = before.column_names, after.column_names
    if len(new) > len(old):
        added = after.columns[-1]
        yield f"add columns ({_name(added.name)} {spark_type(added.type)})"
    elif len(new) < len(old):
        yield from (f"drop column {_name(name)}" for name in old if name not in new)
    elif old != new:
        yield from (f"rename column {_name(a)} to {_name(b)}" for a, b in zip(old, new, strict=True) if a != b)
    else:
        for was, column in zip(before.columns, after.columns, strict=True):
            if was.type != column.type:
                yield f"alter column {_name(column.name)} type {spark_type(column.type)}"
