"""A deterministic, realistic logical change stream over several tables.

`logical_stream(seed, statements)` yields `statements` statements: first a fixed curated prefix
that holds every edge case (see `_curated_prefix`), then random statements drawn from
`random.Random(seed)`, among them, at fixed places, UPDATEs of one row whose execution times go
back (see LOCK_WAIT_AT). The same seed gives the same stream. Memory stays nearly constant: each
table keeps at most `MAX_LIVE_ROWS` live rows (the builder deletes more when a table is full),
and the rows of the lock-wait pairs (one every LOCK_WAIT_EVERY statements) besides.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from itertools import chain, islice

from cdc_tools.generator.model import (
    BinlogPosition,
    Column,
    ColumnType,
    DdlKind,
    Row,
    RowChange,
    SchemaChange,
    Statement,
    Table,
    Value,
)

MAX_LIVE_ROWS = 2000
START_MS = 1_704_067_200_000  # 2024-01-01 00:00:00 UTC
BINLOG_FILE_BYTES = 1 << 30
# Producers restart after statements 36, 136, ... and send their last 5 statements again. The
# first restart re-sends the curated prefix's same-time DELETE and re-INSERT, and INSERT, DELETE
# and INSERT of one row; the others re-send statement 132, 232, ..., which OMS shards when it is
# an UPDATE (seq % 5 == 2).
RESTART_EVERY, RESTART_AT, REDELIVERED_STATEMENTS = 100, 36, 5
RESTART_DELAY_MS = 30_000
# A producer without idempotence retries: of every 300 statements (a multiple of the encoders'
# seq-based shapes: canal's 4 and 6, OMS's 3, 5 and 25), it writes each message of statements 10,
# 16, 29, 161 and 251 twice, the copy right after it; in the curated prefix 10 is an UPDATE of two
# rows, 16 a DELETE of two rows, 29 an ALTER. None of them is TiCDC's in canal_json (a DDL's
# watermark would be copied too), framed, preceded by a heartbeat or sharded in OMS (a copy is
# never a control record or a lone shard), or among a restart's re-sent statements.
RETRY_EVERY, RETRIED_AT = 300, frozenset({10, 16, 29, 161, 251})
# Statements 72 and 73 of every 150 update one row, the second stamped LOCK_WAIT_MS before the
# first (see `StreamBuilder.lock_wait`); neither is TiCDC's in canal_json (seq % 6 == 2), which
# stamps commit times. No later statement changes the row, so the typed replicas, which hold
# every format's changes, end at the second only where the positions order the pair.
LOCK_WAIT_EVERY, LOCK_WAIT_AT, LOCK_WAIT_MS = 150, 72, 1000

INT = ColumnType("int")
BIGINT = ColumnType("bigint")
TEXT = ColumnType("text")
DATE = ColumnType("date")


def varchar(length: int) -> ColumnType:
    return ColumnType("varchar", length=length)


def decimal(precision: int, scale: int) -> ColumnType:
    return ColumnType("decimal", precision=precision, scale=scale)


def datetime_(fsp: int = 0) -> ColumnType:
    return ColumnType("datetime", fsp=fsp)


CUSTOMERS = Table(
    "shop",
    "customers",
    (
        Column("id", INT, nullable=False),
        Column("name", varchar(64), nullable=False),
        Column("email", varchar(128)),
        Column("balance", decimal(12, 2), nullable=False),
        Column("created_at", datetime_(3), nullable=False),
        Column("birthday", DATE),
        Column("note", TEXT),
    ),
    ("id",),
)
ORDERS = Table(
    "shop",
    "orders",
    (
        Column("order_id", BIGINT, nullable=False),
        Column("line_no", INT, nullable=False),
        Column("sku", varchar(32), nullable=False),
        Column("qty", INT, nullable=False),
        Column("unit_price", decimal(18, 6), nullable=False),
        Column("ordered_at", datetime_(6), nullable=False),
        Column("shipped_at", datetime_(0)),
        Column("status", varchar(16), nullable=False),
    ),
    ("order_id", "line_no"),
)
NOTES = Table(
    "crm",
    "notes",
    (
        Column("code", varchar(16), nullable=False),
        Column("body", TEXT, nullable=False),
        Column("score", decimal(5, 1)),
        Column("updated_at", datetime_(6)),
    ),
    ("code",),
)
IMPORT_BATCH = Table(
    "shop",
    "import_batch",
    (Column("id", INT, nullable=False), Column("payload", varchar(255))),
    ("id",),
)
TIER = Column("tier", varchar(8))

# Strings that break naive encoders: quotes, backslashes, control characters, unicode.
NASTY_STRINGS = (
    "O'Brien",
    'say "hi"',
    "back\\slash",
    "tab\there",
    "line one\nline two",
    "café ☕",
    "日本語テキスト",
    "emoji 😀 ok",
    'comma, semi; {"json": [1]}',
    "   padded   ",
)
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")
STATUSES = ("new", "paid", "packed", "shipped", "returned")
TIERS = ("gold", "silver", "bronze", "")


def create_table_sql(table: Table) -> str:
    columns = [f"`{c.name}` {c.type.mysql_type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    columns.append("PRIMARY KEY (" + ", ".join(f"`{k}`" for k in table.key) + ")")
    return f"CREATE TABLE `{table.name}` (\n  " + ",\n  ".join(columns) + "\n) ENGINE=InnoDB"


class _LiveRows:
    """The live rows of one table, with O(1) random pick and removal."""

    def __init__(self) -> None:
        self.keys: list[tuple] = []
        self.rows: dict[tuple, dict[str, Value]] = {}
        self._pos: dict[tuple, int] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def put(self, key: tuple, row: dict[str, Value]) -> None:
        if key not in self.rows:
            self._pos[key] = len(self.keys)
            self.keys.append(key)
        self.rows[key] = row

    def remove(self, key: tuple) -> None:
        index = self._pos.pop(key)
        last = self.keys.pop()
        if last != key:
            self.keys[index] = last
            self._pos[last] = index
        del self.rows[key]

    def sample(self, rng: random.Random, count: int) -> list[tuple]:
        return rng.sample(self.keys, min(count, len(self.keys)))

    def pin(self, key: tuple) -> None:
        """Keeps the row as it is: no later statement picks it."""
        row = self.rows[key]
        self.remove(key)
        self.rows[key] = row


class StreamBuilder:
    """Applies statements to an in-memory picture of the tables and numbers them."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tables: dict[str, Table] = {}
        self.live: dict[str, _LiveRows] = {}
        self.seq = 0
        self.event_ms = START_MS
        self.binlog_file = 1
        self.binlog_offset = 4
        self.next_customer_id = 1
        self.next_order_id = 1001
        self.next_note = 1
        self.time_frozen = False

    # -------------------------------------------------------------- statement plumbing

    @contextmanager
    def one_time(self) -> Iterator[None]:
        """Statements made inside run at the execution time of the one before them, as changes
        within one binlog second do: only their position and arrival order tell their order."""
        self.time_frozen = True
        try:
            yield
        finally:
            self.time_frozen = False

    def _statement(self, size: int, **fields) -> Statement:
        rng = self.rng
        if not self.time_frozen:
            self.event_ms += rng.randint(1, 1500)
        position = BinlogPosition(f"mysql-bin.{self.binlog_file:06d}", self.binlog_offset)
        self.binlog_offset += 120 + 80 * size + rng.randint(0, 40)
        if self.binlog_offset > BINLOG_FILE_BYTES:
            self.binlog_file += 1
            self.binlog_offset = 4
        statement = Statement(
            seq=self.seq,
            event_ms=self.event_ms,
            emitted_ms=self.event_ms + rng.randint(3, 800),
            position=position,
            **fields,
        )
        self.seq += 1
        return statement

    @staticmethod
    def _id(database: str, name: str) -> str:
        return f"{database}.{name}"

    def ddl(self, kind: DdlKind, database: str, name: str | None, sql: str, table: Table | None = None) -> Statement:
        return self._statement(1, schema_change=SchemaChange(kind, database, name, sql, table), table=table)

    def create(self, table: Table) -> Statement:
        table_id = self._id(table.database, table.name)
        self.tables[table_id] = table
        self.live[table_id] = _LiveRows()
        return self.ddl("CREATE", table.database, table.name, create_table_sql(table), table)

    def drop(self, table: Table) -> Statement:
        table_id = self._id(table.database, table.name)
        del self.tables[table_id], self.live[table_id]
        return self.ddl("DROP", table.database, table.name, f"DROP TABLE `{table.name}`", table)

    def truncate(self, table: Table) -> Statement:
        self.live[self._id(table.database, table.name)] = _LiveRows()
        return self.ddl("TRUNCATE", table.database, table.name, f"TRUNCATE TABLE `{table.name}`")

    def rename(self, table: Table, new_name: str) -> Statement:
        old_id = self._id(table.database, table.name)
        renamed = replace(table, name=new_name)
        new_id = self._id(table.database, new_name)
        self.tables[new_id] = renamed
        self.live[new_id] = self.live.pop(old_id)
        del self.tables[old_id]
        sql = f"RENAME TABLE `{table.name}` TO `{new_name}`"
        change = SchemaChange("RENAME", table.database, new_name, sql, renamed, previous_table_name=table.name)
        return self._statement(1, schema_change=change, table=renamed)

    def add_column(self, table: Table, column: Column, after: str) -> Statement:
        table_id = self._id(table.database, table.name)
        altered = replace(table, columns=(*table.columns, column))
        self.tables[table_id] = altered
        for row in self.live[table_id].rows.values():
            row[column.name] = None
        sql = f"ALTER TABLE `{table.name}` ADD COLUMN `{column.name}` {column.type.mysql_type} NULL AFTER `{after}`"
        return self.ddl("ALTER", table.database, table.name, sql, altered)

    def drop_column(self, table: Table, name: str) -> Statement:
        table_id = self._id(table.database, table.name)
        altered = replace(table, columns=tuple(c for c in table.columns if c.name != name))
        self.tables[table_id] = altered
        for row in self.live[table_id].rows.values():
            del row[name]
        sql = f"ALTER TABLE `{table.name}` DROP COLUMN `{name}`"
        return self.ddl("ALTER", table.database, table.name, sql, altered)

    def rename_column(self, table: Table, name: str, new_name: str) -> Statement:
        table_id = self._id(table.database, table.name)
        renamed = tuple(replace(c, name=new_name) if c.name == name else c for c in table.columns)
        altered = replace(table, columns=renamed)
        self.tables[table_id] = altered
        live = self.live[table_id]
        for key, row in live.rows.items():
            live.rows[key] = {(new_name if column == name else column): value for column, value in row.items()}
        sql = f"ALTER TABLE `{table.name}` RENAME COLUMN `{name}` TO `{new_name}`"
        return self.ddl("ALTER", table.database, table.name, sql, altered)

    def modify_column(self, table: Table, name: str, type_: ColumnType) -> Statement:
        """Gives a column a wider type; its values stay as they are."""
        table_id = self._id(table.database, table.name)
        altered = replace(table, columns=tuple(replace(c, type=type_) if c.name == name else c for c in table.columns))
        self.tables[table_id] = altered
        null = "NULL" if altered.column(name).nullable else "NOT NULL"
        sql = f"ALTER TABLE `{table.name}` MODIFY COLUMN `{name}` {type_.mysql_type} {null}"
        return self.ddl("ALTER", table.database, table.name, sql, altered)

    def index(self, table: Table, name: str, column: str, create: bool) -> Statement:
        if create:
            sql = f"CREATE INDEX `{name}` ON `{table.name}` (`{column}`)"
            return self.ddl("CREATE_INDEX", table.database, table.name, sql, table)
        sql = f"DROP INDEX `{name}` ON `{table.name}`"
        return self.ddl("DROP_INDEX", table.database, table.name, sql, table)

    def _dml(self, table: Table, changes: list[RowChange]) -> Statement:
        return self._statement(len(changes), table=table, changes=tuple(changes))

    def insert(self, table: Table, rows: list[Row]) -> Statement:
        live = self.live[self._id(table.database, table.name)]
        changes = []
        for row in rows:
            full = {name: row.get(name) for name in table.column_names}
            live.put(tuple(full[k] for k in table.key), full)
            changes.append(RowChange("INSERT", None, dict(full)))
        return self._dml(table, changes)

    def update(self, table: Table, updates: list[tuple[tuple, dict[str, Value]]]) -> Statement:
        live = self.live[self._id(table.database, table.name)]
        changes = []
        for key, new_values in updates:
            before = live.rows[key]
            after = {**before, **new_values}
            live.put(key, after)
            changes.append(RowChange("UPDATE", dict(before), dict(after)))
        return self._dml(table, changes)

    def delete(self, table: Table, keys: list[tuple]) -> Statement:
        live = self.live[self._id(table.database, table.name)]
        changes = []
        for key in keys:
            changes.append(RowChange("DELETE", dict(live.rows[key]), None))
            live.remove(key)
        return self._dml(table, changes)

    def lock_wait(self, table: Table) -> Iterator[Statement]:
        """Two UPDATEs of one row, the second stamped LOCK_WAIT_MS before the first: it started
        first, then waited on the row lock the first's transaction held. MySQL stamps a row event
        with its statement's start time but writes the binlog in commit order, so only the
        position orders them."""
        key = self.rng.choice(self.live[self._id(table.database, table.name)].keys)
        first = self.update(table, [(key, self.random_update(table, key, "one"))])
        yield first
        waited = self.update(table, [(key, self.random_update(table, key, "one"))])
        yield replace(waited, event_ms=first.event_ms - LOCK_WAIT_MS)
        # The row ends as the second left it: the replicas hold it only where positions order the pair.
        self.live[self._id(table.database, table.name)].pin(key)

    def table(self, database: str, name: str) -> Table:
        return self.tables[self._id(database, name)]

    # ------------------------------------------------------------------ random values

    def random_datetime(self, fsp: int) -> datetime:
        """A datetime in 2020-2025 whose last fraction digit (at the fsp) is non-zero."""
        rng = self.rng
        value = datetime(2020, 1, 1) + timedelta(seconds=rng.randrange(6 * 365 * 86400))
        if fsp:
            digits = rng.randrange(10 ** (fsp - 1)) * 10 + rng.randint(1, 9)
            value = value.replace(microsecond=digits * 10 ** (6 - fsp))
        return value

    def random_value(self, column: Column) -> Value:
        rng = self.rng
        kind = column.type.kind
        if kind in ("int", "bigint"):
            return rng.randint(-1000, 100_000) if kind == "int" else rng.randint(-(10**12), 10**15)
        if kind == "decimal":
            precision, scale = column.type.precision, column.type.scale
            assert precision is not None and scale is not None
            bound = 10 ** min(precision, rng.choice((3, 5, precision))) - 1
            return Decimal(rng.randint(-bound, bound)).scaleb(-scale)
        if kind == "datetime":
            return self.random_datetime(column.type.fsp)
        if kind == "date":
            return date(1950, 1, 1) + timedelta(days=rng.randrange(60 * 365))
        roll = rng.random()
        if roll < 0.05:
            text = ""
        elif roll < 0.25:
            text = rng.choice(NASTY_STRINGS)
        else:
            text = " ".join(rng.choices(WORDS, k=rng.randint(1, 6 if kind == "text" else 2)))
        return text[: column.type.length] if column.type.length else text

    def new_customer(self) -> dict[str, Value]:
        rng = self.rng
        customer_id = self.next_customer_id
        self.next_customer_id += 1
        table = self.table("shop", "customers")
        row = {c.name: self.random_value(c) for c in table.columns}
        row["id"] = customer_id
        row["email"] = f"user{customer_id}@example.com" if rng.random() < 0.8 else None
        for name in ("birthday", "note", "tier"):
            if name in row and rng.random() < 0.3:
                row[name] = None
        return row

    def new_order_lines(self, count: int) -> list[dict[str, Value]]:
        order_id = self.next_order_id
        self.next_order_id += 1
        table = self.table("shop", "orders")
        ordered_at = self.random_datetime(6)
        rows = []
        for line_no in range(1, count + 1):
            row = {c.name: self.random_value(c) for c in table.columns}
            row.update(
                order_id=order_id,
                line_no=line_no,
                ordered_at=ordered_at,
                status=self.rng.choice(STATUSES),
                qty=self.rng.randint(1, 20),
            )
            row["sku"] = f"SKU-{self.rng.randint(1, 9999):04d}"
            if self.rng.random() < 0.5:
                row["shipped_at"] = None
            rows.append(row)
        return rows

    def new_note(self) -> dict[str, Value]:
        code = f"N-{self.next_note}"
        self.next_note += 1
        table = self.table("crm", "notes")
        row = {c.name: self.random_value(c) for c in table.columns}
        row["code"] = code
        for name in ("score", "updated_at"):
            if self.rng.random() < 0.3:
                row[name] = None
        return row

    def _new_value(self, column: Column, old: Value) -> Value:
        for _ in range(20):
            value = self.random_value(column)
            if value != old:
                return value
        raise AssertionError(f"no new value for {column}")

    def random_update(self, table: Table, key: tuple, mode: str) -> dict[str, Value]:
        """New values for one row: `one` column, `to_null`, `from_null` or `many` columns."""
        rng = self.rng
        row = self.live[self._id(table.database, table.name)].rows[key]
        candidates = [c for c in table.columns if c.name not in table.key]
        if mode == "to_null":
            nullable = [c for c in candidates if c.nullable and row[c.name] is not None]
            if nullable:
                return {rng.choice(nullable).name: None}
        if mode == "from_null":
            nulls = [c for c in candidates if row[c.name] is None]
            if nulls:
                column = rng.choice(nulls)
                return {column.name: self._new_value(column, None)}
        count = rng.randint(2, 3) if mode == "many" else 1
        return {c.name: self._new_value(c, row[c.name]) for c in rng.sample(candidates, count)}

    # ------------------------------------------------------------------ random statements

    def random_statement(self) -> Statement:
        rng = self.rng
        if rng.random() < 0.004:
            return self.random_ddl()
        table = self.tables[rng.choice(("shop.customers", "shop.orders", "crm.notes"))]
        live = self.live[self._id(table.database, table.name)]
        roll = rng.random()
        if len(live) < 5 or roll < 0.35:
            count = rng.choice((1, 1, 1, 2, 3, 5))
            if table.name == "orders":
                return self.insert(table, self.new_order_lines(count))
            if table.name == "customers":
                return self.insert(table, [self.new_customer() for _ in range(count)])
            return self.insert(table, [self.new_note() for _ in range(count)])
        if len(live) >= MAX_LIVE_ROWS or roll > 0.8:
            return self.delete(table, live.sample(rng, rng.choice((1, 1, 2, 3))))
        mode = rng.choice(("one", "one", "one", "to_null", "from_null", "many"))
        keys = live.sample(rng, rng.choice((1, 1, 1, 2, 3)))
        return self.update(table, [(key, self.random_update(table, key, mode)) for key in keys])

    def random_ddl(self) -> Statement:
        """Toggles an index on orders or the `tier` column on customers."""
        rng = self.rng
        if rng.random() < 0.5:
            orders = self.table("shop", "orders")
            self.orders_index = not getattr(self, "orders_index", False)
            return self.index(orders, "ix_orders_status", "status", self.orders_index)
        customers = self.table("shop", "customers")
        if "tier" in customers.column_names:
            return self.drop_column(customers, "tier")
        return self.add_column(customers, TIER, "note")


def _curated_prefix(b: StreamBuilder) -> Iterator[Statement]:
    """Every edge case, in a fixed order: DDL of every kind, multi-row statements, NULLs,
    empty strings, quotes and unicode, negative decimals, fractional datetimes, updates of one
    column and from and to NULL, composite and string keys."""
    yield b.ddl("QUERY", "shop", None, "CREATE DATABASE IF NOT EXISTS `shop`")
    yield b.create(CUSTOMERS)
    yield b.create(ORDERS)
    yield b.ddl("QUERY", "crm", None, "CREATE DATABASE IF NOT EXISTS `crm`")
    yield b.create(NOTES)
    created = datetime(2024, 1, 1, 8, 30, 15, 123000)
    customers = b.table("shop", "customers")
    yield b.insert(
        customers,
        [
            dict(
                id=1,
                name="Ada Lovelace",
                email="ada@example.com",
                balance=Decimal("10.50"),
                created_at=created,
                birthday=date(1815, 12, 10),
                note="first customer",
            )
        ],
    )
    yield b.insert(
        customers,
        [
            dict(
                id=2,
                name="Null Everything",
                email=None,
                balance=Decimal("0.00"),
                created_at=datetime(2024, 1, 1, 9, 0, 0, 1000),
                birthday=None,
                note=None,
            ),
            dict(
                id=3,
                name="",
                email="",
                balance=Decimal("-0.05"),
                created_at=datetime(2024, 1, 1, 9, 0, 1, 999000),
                birthday=date(2000, 2, 29),
                note="",
            ),
            dict(
                id=4,
                name='Zoë "Zed" O\'Brien \\ 日本 😀',
                email="zoë@例え.jp",
                balance=Decimal("-9999999999.99"),
                created_at=datetime(2024, 1, 1, 9, 0, 2, 7000),
                birthday=date(1970, 1, 1),
                note='line one\nline two\ttabbed, {"json": true}',
            ),
        ],
    )
    b.next_customer_id = 5
    yield b.update(customers, [((1,), {"name": "Ada King"})])
    yield b.update(customers, [((2,), {"email": "null.everything@example.com"})])
    yield b.update(customers, [((1,), {"note": None})])
    yield b.update(
        customers,
        [
            ((3,), {"balance": Decimal("1234567890.12"), "name": "named now"}),
            ((4,), {"balance": Decimal("-0.01")}),
        ],
    )
    orders = b.table("shop", "orders")
    ordered_at = datetime(2024, 1, 2, 10, 11, 12, 345678)
    yield b.insert(
        orders,
        [
            dict(
                order_id=1001,
                line_no=1,
                sku="SKU-0001",
                qty=2,
                unit_price=Decimal("19.990000"),
                ordered_at=ordered_at,
                shipped_at=None,
                status="new",
            ),
            dict(
                order_id=1001,
                line_no=2,
                sku="SKU-0002",
                qty=1,
                unit_price=Decimal("-5.000001"),
                ordered_at=ordered_at,
                shipped_at=None,
                status="new",
            ),
            dict(
                order_id=1001,
                line_no=3,
                sku="SKU-0003",
                qty=10,
                unit_price=Decimal("123456789012.345679"),
                ordered_at=ordered_at,
                shipped_at=datetime(2024, 1, 3, 0, 0, 0),
                status="shipped",
            ),
        ],
    )
    b.next_order_id = 1002
    yield b.update(
        orders,
        [
            (
                (1001, 1),
                {
                    "qty": 3,
                    "status": "shipped",
                    "shipped_at": datetime(2024, 1, 4, 12, 0, 1),
                },
            )
        ],
    )
    notes = b.table("crm", "notes")
    yield b.insert(
        notes,
        [
            dict(code="N-1", body="multi\nline\tbody", score=None, updated_at=datetime(2024, 1, 5, 1, 2, 3, 4)),
            dict(code="N-2", body="", score=Decimal("-1.5"), updated_at=None),
        ],
    )
    b.next_note = 3
    yield b.update(notes, [(("N-1",), {"body": 'ünïcödé ✓ "q"', "score": Decimal("4.5")})])
    yield b.delete(customers, [(4,)])
    yield b.delete(orders, [(1001, 2), (1001, 3)])
    yield b.add_column(customers, TIER, "note")
    customers = b.table("shop", "customers")
    yield b.insert(
        customers,
        [
            dict(
                id=5,
                name="Tiered",
                email="tier@example.com",
                balance=Decimal("100.00"),
                created_at=datetime(2024, 1, 6, 0, 0, 0, 512000),
                birthday=None,
                note=None,
                tier="gold",
            )
        ],
    )
    b.next_customer_id = 6
    yield b.update(customers, [((1,), {"tier": "silver", "balance": Decimal("10.51")})])
    yield b.index(orders, "ix_orders_sku", "sku", create=True)
    yield b.index(orders, "ix_orders_sku", "sku", create=False)
    yield b.create(IMPORT_BATCH)
    yield b.insert(b.table("shop", "import_batch"), [dict(id=1, payload="a"), dict(id=2, payload=None)])
    yield b.truncate(b.table("shop", "import_batch"))
    yield b.rename(b.table("shop", "import_batch"), "import_batch_old")
    yield b.insert(b.table("shop", "import_batch_old"), [dict(id=3, payload="after rename")])
    yield b.delete(b.table("shop", "import_batch_old"), [(3,)])
    yield b.drop(b.table("shop", "import_batch_old"))
    yield b.drop_column(customers, "tier")
    yield b.update(b.table("shop", "customers"), [((5,), {"balance": Decimal("99.99")})])
    yield b.delete(notes, [("N-2",)])
    # One row's changes at one execution time: a DELETE then re-INSERT keep their order; an
    # INSERT, DELETE and the same INSERT again are three changes (statements 32-36, which the
    # first restart sends again); an INSERT then UPDATE keep their order.
    customers = b.table("shop", "customers")
    twin = b.new_customer()
    yield b.delete(customers, [(5,)])
    with b.one_time():
        yield b.insert(customers, [{**twin, "id": 5, "name": "Re-inserted"}])
    yield b.insert(customers, [twin])
    with b.one_time():
        yield b.delete(customers, [(twin["id"],)])
        yield b.insert(customers, [twin])
    fresh = b.new_customer()
    yield b.insert(customers, [fresh])
    with b.one_time():
        yield b.update(customers, [((fresh["id"],), {"name": "Updated at once"})])
    # Columns renamed and widened: a replica reads rows written before under the old name, and
    # gives the wider type.
    yield b.rename_column(b.table("crm", "notes"), "body", "content")
    yield b.update(b.table("crm", "notes"), [(("N-1",), {"content": "after the rename"})])
    yield b.modify_column(b.table("shop", "orders"), "qty", BIGINT)
    yield b.modify_column(b.table("shop", "customers"), "balance", decimal(14, 2))
    # A table renamed with its rows: they go on under the new name, and a change there (a
    # partial image in some formats) continues the row it had.
    yield b.create(replace(IMPORT_BATCH, name="import_queue"))
    yield b.insert(b.table("shop", "import_queue"), [dict(id=1, payload="queued"), dict(id=2, payload=None)])
    yield b.rename(b.table("shop", "import_queue"), "import_done")
    yield b.update(b.table("shop", "import_done"), [((2,), {"payload": "done after the rename"})])


def logical_stream(seed: int, statements: int) -> Iterator[Statement]:
    """`statements` statements: the curated prefix (cut short if `statements` is smaller), then
    random statements seeded by `seed`."""
    return _statements(StreamBuilder(seed), statements)


def final_tables(seed: int, statements: int) -> dict[tuple[str, str], tuple[Table, list[dict[str, Value]]]]:
    """The tables that exist after `logical_stream(seed, statements)`: (database, name) to the
    table's definition and its rows."""
    builder = StreamBuilder(seed)
    for _ in _statements(builder, statements):
        pass
    return {
        (table.database, table.name): (table, list(builder.live[table_id].rows.values()))
        for table_id, table in builder.tables.items()
    }


def _statements(builder: StreamBuilder, statements: int) -> Iterator[Statement]:
    return islice(chain(_curated_prefix(builder), _random_statements(builder)), statements)


def _random_statements(b: StreamBuilder) -> Iterator[Statement]:
    while True:
        if b.seq % LOCK_WAIT_EVERY == LOCK_WAIT_AT:
            yield from b.lock_wait(b.table("shop", "customers"))
        else:
            yield b.random_statement()


def deliveries(statements: Iterable[Statement]) -> Iterator[Statement]:
    """`statements` as their producers send them: each once, and after a restart (see
    RESTART_EVERY) the last few again, in a new envelope (`delivery` counts up, the emit time
    moves on), as a restarted connector re-sends from its last committed offset."""
    recent: deque[Statement] = deque(maxlen=REDELIVERED_STATEMENTS)
    for statement in statements:
        yield statement
        recent.append(statement)
        if statement.seq % RESTART_EVERY == RESTART_AT:
            for sent in recent:
                yield replace(sent, emitted_ms=sent.emitted_ms + RESTART_DELAY_MS, delivery=sent.delivery + 1)


def producer_retried(statement: Statement) -> bool:
    """Whether the producer writes each of the statement's messages twice, the copy right after
    it (see RETRIED_AT); a restart's re-send is not retried."""
    return statement.delivery == 0 and statement.seq % RETRY_EVERY in RETRIED_AT


def restart_marks(sent: Iterable[Statement]) -> Iterator[tuple[Statement, bool]]:
    """Each statement of `sent` (as `deliveries` gives them) with whether it is the first that a
    restarted producer sends, which lands in a new file."""
    resending = False
    for statement in sent:
        yield statement, statement.delivery > 0 and not resending
        resending = statement.delivery > 0
