"""The logical change stream: tables, row changes, schema changes, statements.

A statement is what one SQL statement leaves in the binlog: the row changes of one table
(a multi-row INSERT/UPDATE/DELETE) or one DDL. Encoders turn a statement into the lines of a
wire format; `expected` turns it into the row changes and schema changes the facts must hold.

Values are Python values (int, Decimal, datetime, date, str, None). Their canonical text, the
text every format's staging must produce, is MySQL's text for the column type (see
`value_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import cached_property
from typing import Literal

Value = int | Decimal | datetime | date | str | None
Row = Mapping[str, Value]

TypeKind = Literal["int", "bigint", "decimal", "varchar", "text", "datetime", "date"]
Operation = Literal["INSERT", "UPDATE", "DELETE"]
DdlKind = Literal["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "CREATE_INDEX", "DROP_INDEX", "QUERY"]

# java.sql.Types numbers (002's jdbcType table).
_JDBC = {"int": 4, "bigint": -5, "decimal": 3, "varchar": 12, "text": -1, "datetime": 93, "date": 91}


@dataclass(frozen=True)
class ColumnType:
    """A MySQL column type: `length` for varchar, `precision`/`scale` for decimal, `fsp` (the
    fractional-seconds precision, 0-6) for datetime."""

    kind: TypeKind
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    fsp: int = 0

    @cached_property
    def mysql_type(self) -> str:
        """The type as MySQL's `SHOW COLUMNS` spells it, e.g. decimal(12,2), datetime(3)."""
        match self.kind:
            case "int":
                return "int(11)"
            case "bigint":
                return "bigint(20)"
            case "decimal":
                return f"decimal({self.precision},{self.scale})"
            case "varchar":
                return f"varchar({self.length})"
            case "datetime":
                return f"datetime({self.fsp})" if self.fsp else "datetime"
            case _:
                return self.kind

    @property
    def type_name(self) -> str:
        """The bare type name, upper case (Debezium's `typeName`)."""
        return self.kind.upper()

    @property
    def jdbc_type(self) -> int:
        return _JDBC[self.kind]


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    nullable: bool = True


@dataclass(frozen=True)
class Table:
    """A table definition at one point of the stream (DDL replaces it with a new one)."""

    database: str
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def column(self, name: str) -> Column:
        return next(column for column in self.columns if column.name == name)

    @cached_property
    def mysql_types(self) -> dict[str, str]:
        return {column.name: column.type.mysql_type for column in self.columns}

    @cached_property
    def jdbc_types(self) -> dict[str, int]:
        return {column.name: column.type.jdbc_type for column in self.columns}

    @cached_property
    def _formatters(self) -> tuple[tuple[str, Callable[[Value], str | None]], ...]:
        return tuple((column.name, _formatter(column.type)) for column in self.columns)

    def row_text(self, row: Row) -> dict[str, str | None]:
        """A row's canonical text (see `value_text`), column by column in table order."""
        return {name: format_(row[name]) for name, format_ in self._formatters}


@dataclass(frozen=True)
class RowChange:
    """One changed row: `before` is None for an insert, `after` None for a delete; both are
    full rows in the table's column order."""

    operation: Operation
    before: Row | None
    after: Row | None

    @property
    def image(self) -> Row:
        """The row a format shows first: the after image, or the before image of a delete."""
        image = self.after if self.after is not None else self.before
        assert image is not None
        return image

    @property
    def changed_columns(self) -> tuple[str, ...]:
        """Columns whose value differs; every column of an inserted or deleted row."""
        if self.before is None or self.after is None:
            return tuple(self.image)
        return tuple(name for name in self.after if self.before.get(name) != self.after[name])


@dataclass(frozen=True)
class SchemaChange:
    """One DDL statement. `table` is the table's definition after it (for DROP: the dropped
    definition; None for database-level QUERY and for TRUNCATE); a RENAME's `table_name` is the
    new name, `previous_table_name` the old."""

    kind: DdlKind
    database: str
    table_name: str | None
    sql: str
    table: Table | None = None
    previous_table_name: str | None = None


@dataclass(frozen=True)
class BinlogPosition:
    file: str
    offset: int


@dataclass(frozen=True)
class Statement:
    """One binlog statement: either `changes` (DML on `table`) or `schema_change` (DDL).

    `seq` numbers statements from 0; `event_ms` is the execution time at the source (epoch
    ms: statements within one binlog second may share it; it never decreases but where a
    statement waited on a row lock, see `stream.LOCK_WAIT_AT`), `emitted_ms` when the producer
    sent it. `delivery` counts the times it was sent before: a restarted producer
    sends it again with a new envelope (emit time, batch id), the change itself the same.
    """

    seq: int
    event_ms: int
    emitted_ms: int
    position: BinlogPosition
    table: Table | None = None
    changes: tuple[RowChange, ...] = field(default_factory=tuple)
    schema_change: SchemaChange | None = None
    delivery: int = 0

    @cached_property
    def images(self) -> tuple[tuple[dict[str, str | None] | None, dict[str, str | None] | None], ...]:
        """Each row change's (before, after) canonical text, computed once for every encoder."""
        assert self.table is not None or not self.changes
        return tuple(
            (
                None if change.before is None else self.table.row_text(change.before),
                None if change.after is None else self.table.row_text(change.after),
            )
            for change in self.changes
        )

    @property
    def batch(self) -> int:
        """The producer's batch number: `seq`, past every first delivery's on a redelivery."""
        return self.seq + self.delivery * 1_000_000_000

    @property
    def operation(self) -> Operation:
        return self.changes[0].operation

    @property
    def database(self) -> str:
        if self.schema_change is not None:
            return self.schema_change.database
        assert self.table is not None
        return self.table.database


def value_text(value: Value, column_type: ColumnType) -> str | None:
    """The canonical text of a value: MySQL's text for the column type.

    - decimal: exact, with the column's scale ("10.50", "-0.05");
    - datetime: "YYYY-MM-DD HH:MM:SS" plus as many fraction digits as the column's fsp;
    - date: "YYYY-MM-DD"; int: decimal digits; strings as they are; NULL as None.

    The stream builder only makes datetimes whose last fraction digit is non-zero, so this text
    is also Spark's `cast(timestamp as string)` form (which drops trailing fraction zeros): a
    staging that decodes Debezium's epoch-based Timestamp/MicroTimestamp (which cannot carry the
    fsp) gives the same text.
    """
    return _formatter(column_type)(value)


def _formatter(column_type: ColumnType) -> Callable[[Value], str | None]:
    kind = column_type.kind
    if kind == "datetime":
        fsp = column_type.fsp

        def datetime_text(value):
            if value is None:
                return None
            text = (
                f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
                f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
            )
            return text + "." + f"{value.microsecond:06d}"[:fsp] if fsp else text

        return datetime_text
    if kind == "date":
        return lambda value: None if value is None else value.isoformat()
    if kind == "decimal":
        return lambda value: None if value is None else f"{value:f}"
    if kind in ("int", "bigint"):
        return lambda value: None if value is None else str(value)
    return lambda value: value
