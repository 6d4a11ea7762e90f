"""End-to-end: `dbt build` on the local target, then the exact contents of the four marts.

Expectations are written by hand from the sample files under samples/landing/canal_json/ and
the spec documents (000 canal FlatMessage, 001 canal-compatible platform, 002/004 canal JSON with
tableChanges, TiCDC's Canal-JSON protocol), not copied from a build's output.

The builds run through dbt_harness.Build, one after the other in one worker process (its JVM
warm for the second), each in a schema of its own: the samples; a landing root written by the
test, which holds no other format's folder. Each is awaited by the fixture that needs it.
`dbt build` alone, not `dbt seed` first: build runs the seeds as nodes before the models that
ref them (checked in run_results.json). dbt's unit tests, which read no landed data, are left to
`make test-dbt-unit` (in `make test-fast`; on Spark 3.5 the equivalence test runs them).

The samples folder holds other formats' samples too; the samples tests look at canal_json's rows
only (each format's own rows are its staging's tests).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from support.dbt_harness import (
    ANSI_MODE,
    DATA_BUILD,
    EPOCH,
    MARTS,
    REPO,
    UTC,
    Build,
    file_name,
    profiles_dir,
)
from support.dbt_worker import DbtWorker

SAMPLES = REPO / "samples" / "landing" / "canal_json"


def ms(epoch_millis: int) -> datetime:
    """Canal `es`/`ts` in epoch milliseconds (000, 002, 004)."""
    return EPOCH + timedelta(milliseconds=epoch_millis)


def tso_time(tso: int) -> datetime:
    """A TiDB TSO's commit time: its physical part, above its 18 logical bits, in ms."""
    return ms(tso >> 18)


def sec(epoch_seconds: int) -> datetime:
    """Epoch seconds, as the 001 platform's DDL messages carry them."""
    return EPOCH + timedelta(seconds=epoch_seconds)


# ----------------------------------------------------------------------------- harness


def _diff(expected: dict, actual: dict, fields: list[str]) -> list[str]:
    """Every difference between two {key: row} dicts, one line each."""
    problems = [f"missing row {key}" for key in expected.keys() - actual.keys()]
    problems += [f"unexpected row {key}: {actual[key]}" for key in actual.keys() - expected.keys()]
    for key in sorted(expected.keys() & actual.keys(), key=repr):
        for name in fields:
            want, got = expected[key][name], actual[key][name]
            if name == "changed_columns" and got is not None:
                got = sorted(got)  # the spec gives no order to the changed columns
            if want != got:
                problems.append(f"{key} {name}: expected {want!r}, got {got!r}")
    return problems


# ------------------------------------------------------------------ the test's landing root

# A table's life over two files: one batched line (two messages), one blank line; the second
# file has CRLF line ends and no final line terminator.
ITEMS_TYPES = {"id": "int", "name": "varchar(20)", "price": "decimal(10,2)", "tag": "geometry"}
ITEMS_JDBC = {"id": 4, "name": 12, "price": 3, "tag": 424242}  # 424242 is no java.sql.Types number


def _msg(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def _dml(type_: str, id_: int, es: int, data: list, old: list | None) -> dict[str, Any]:
    return {
        "data": data,
        "database": "shop",
        "es": es,
        "id": id_,
        "isDdl": False,
        "mysqlType": ITEMS_TYPES,
        "old": old,
        "pkNames": ["id"] * len(data),
        "sql": "",
        "sqlType": ITEMS_JDBC,
        "table": "items",
        "ts": es + 100,
        "type": type_,
    }


def _ddl(type_: str, id_: int, es: int, sql: str) -> dict[str, Any]:
    return {
        "data": None,
        "database": "shop",
        "es": es,
        "id": id_,
        "isDdl": True,
        "old": None,
        "pkNames": None,
        "sql": sql,
        "table": "items",
        "ts": es + 100,
        "type": type_,
    }


APPLE = {"id": "1", "name": "apple", "price": "1.50", "tag": "t1"}
PEAR = {**APPLE, "name": "pear"}
FIG = {"id": "2", "name": "fig", "price": None, "tag": "x"}
FIG_PRICED = {**FIG, "price": "2.25"}

PART_1 = "part-0001.jsonl"
PART_2 = "part-0002.jsonl"
CREATE_ITEMS = "CREATE TABLE items (id int PRIMARY KEY, name varchar(20), price decimal(10,2), tag geometry)"
PART_1_LINES = [
    _msg(**_ddl("CREATE", 1, 1700000100000, CREATE_ITEMS)),
    _msg(**_dml("INSERT", 2, 1700000101000, [APPLE], None)),
    "",
    "["
    + _msg(**_dml("UPDATE", 3, 1700000102000, [PEAR], [{"name": "apple"}]))
    + ", "
    + _msg(**_dml("INSERT", 4, 1700000103000, [FIG], None))
    + "]",
    _msg(**_ddl("CINDEX", 5, 1700000104000, "CREATE INDEX ix_items_name ON items (name)")),
]
PART_2_LINES = [
    _msg(**_dml("UPDATE", 6, 1700000105000, [FIG_PRICED], [{"price": None}])),
    _msg(**_dml("DELETE", 7, 1700000106000, [PEAR], None)),
    _msg(database="", table="", type="MHEARTBEAT", es=1700000107000, isDdl=False),
    _msg(**_ddl("DINDEX", 8, 1700000108000, "DROP INDEX ix_items_name ON items")),
]
# Names from data that would break or inject SQL if pasted into a statement.
HOSTILE_TABLE = "we`ird'; drop table cdc.fct_row_changes; --"
HOSTILE_COLUMN = "c`; drop table cdc.fct_row_changes; --"
PART_3 = "part-0003.jsonl"


HOSTILE_TYPES = {"id": "int", HOSTILE_COLUMN: "varchar(10)"}


def _row_message(
    table: str, types: dict[str, str], type_: str, id_: int, es: int, row: dict[str, Any], old: dict | None = None
) -> str:
    """A canal message of one row of shop.<table>, keyed by `id`."""
    return _msg(
        data=[row],
        database="shop",
        es=es,
        id=id_,
        isDdl=False,
        mysqlType=types,
        old=None if old is None else [old],
        pkNames=["id"],
        sql="",
        table=table,
        ts=es + 100,
        type=type_,
    )


# The hostile table: a row, a row whose key does not fit its type (`int`), a row deleted.
PART_3_LINES = [
    _row_message(HOSTILE_TABLE, HOSTILE_TYPES, "INSERT", 9, 1700000109000, {"id": "1", HOSTILE_COLUMN: "v"}),
    _row_message(HOSTILE_TABLE, HOSTILE_TYPES, "INSERT", 10, 1700000110000, {"id": "two", HOSTILE_COLUMN: "w"}),
    _row_message(HOSTILE_TABLE, HOSTILE_TYPES, "INSERT", 11, 1700000111000, {"id": "3", HOSTILE_COLUMN: "x"}),
    _row_message(HOSTILE_TABLE, HOSTILE_TYPES, "DELETE", 12, 1700000112000, {"id": "3", HOSTILE_COLUMN: "x"}),
]
# A member's updates, for the replica options: one sends `email` as NULL (ignore_null_updates
# keeps its value); `visits` changes each time (untracked: no version of its own); two share a
# time, kept in their arrival order.
MEMBERS_TYPES = {"id": "int", "name": "varchar(20)", "email": "varchar(40)", "visits": "int"}
PART_4 = "part-0004.jsonl"


ANN = {"id": "1", "name": "ann", "email": "a@x", "visits": "1"}
ANN_EMAIL_NULL = {**ANN, "email": None, "visits": "2"}
ANNA = {**ANN_EMAIL_NULL, "name": "anna", "visits": "3"}
ANNA_EMAIL = {**ANNA, "email": "b@x", "visits": "4"}
PART_4_LINES = [
    _row_message("members", MEMBERS_TYPES, "INSERT", 13, 1700000201000, ANN, None),
    _row_message(
        "members", MEMBERS_TYPES, "UPDATE", 14, 1700000202000, ANN_EMAIL_NULL, {"email": "a@x", "visits": "1"}
    ),
    _row_message("members", MEMBERS_TYPES, "UPDATE", 15, 1700000202000, ANNA, {"name": "ann", "visits": "2"}),
    _row_message("members", MEMBERS_TYPES, "UPDATE", 16, 1700000203000, ANNA_EMAIL, {"email": None, "visits": "3"}),
]
# Every load's net change to shop.items: apple was inserted and deleted (not listed), fig inserted.
NET_CHANGES = "{{ replica_changes('shop', 'items', '2000-01-01', '2100-01-01') }}"
# Bytes are staged as their ISO-8859-1 text: a character past U+00FF is no byte.
BYTES_CASTS = (
    "hex({{ replica_cast(\"'A\u00ff'\", 'binary') }}) as latin1, "
    "{{ replica_cast(\"'\u65e5'\", 'binary') }} is null as beyond"
)
# The replica options a follow-up build of the custom landing root's replicas sets.
REPLICA_OPTIONS = {
    "names": {"shop.items": "items", "shop.members": "members"},
    "options": [
        {"tables": "shop.items", "scd_type": 2, "column_names": "dbt_snapshot", "except_columns": ["tag"]},
        {"tables": "shop.we*", "deletes": "soft"},
        {
            "tables": "shop.members",
            "scd_type": 2,
            "ignore_null_updates": True,
            "track_history_except_columns": ["visits"],
        },
    ],
}
PART_1_LANDED_AT = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
PART_2_LANDED_AT = datetime(2024, 1, 2, 3, 4, 6, tzinfo=UTC)


def _write_landing(root: Path) -> Path:
    folder = root / "canal_json"
    folder.mkdir(parents=True)
    (folder / PART_1).write_bytes(("\n".join(PART_1_LINES) + "\n").encode())
    (folder / PART_2).write_bytes("\r\n".join(PART_2_LINES).encode())
    (folder / PART_3).write_text("\n".join(PART_3_LINES) + "\n")
    (folder / PART_4).write_text("\n".join(PART_4_LINES) + "\n")
    for name, landed_at in ((PART_1, PART_1_LANDED_AT), (PART_2, PART_2_LANDED_AT)):
        os.utime(folder / name, (landed_at.timestamp(), landed_at.timestamp()))
    return root


# -------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> dict[str, Build]:
    """Starts the module's builds, one after the other in one worker, each in a schema of its own,
    with ANSI mode on (a failing cast or an overflow fails the query instead of giving NULL)."""
    root = tmp_path_factory.mktemp("e2e")
    profiles = profiles_dir(root)
    started = {
        "samples": Build("samples", root / "samples", DATA_BUILD, schema="e2e", env=ANSI_MODE, worker=shared_worker),
        # After the samples' build, on its warehouse (the worker runs one command at a time).
        "samples_docs": Build(
            "samples docs",
            root / "samples_docs",
            ["docs", "generate"],
            schema="e2e",
            env=ANSI_MODE,
            worker=shared_worker,
        ),
        "custom": Build(
            "custom landing root",
            root / "custom",
            DATA_BUILD,
            _write_landing(root / "landing"),
            schema="e2e_custom",
            env=ANSI_MODE,
            worker=shared_worker,
            followups=[
                ["show", "--inline", "select name, price from {{ replica_relation('shop', 'items') }}"],
                ["show", "--inline", f"select primary_key, change_type, after_image.name from ({NET_CHANGES})"],
                ["show", "--inline", f"select {BYTES_CASTS}"],
                ["build", "--select", "dim_replica_tables+", "--vars", json.dumps({"replicas": REPLICA_OPTIONS})],
            ],
        ),
    }
    for build in started.values():
        build.start(profiles)
    return started


@pytest.fixture(scope="module")
def samples(builds: dict[str, Build]) -> Build:
    return builds["samples"]


@pytest.fixture(scope="module")
def custom(builds: dict[str, Build]) -> Build:
    return builds["custom"]


# ------------------------------------------------------------------ expectations: samples

F000 = "000_canal_flat_message.jsonl"
F001 = "001_canal_compatible_platform.jsonl"
F002 = "002_004_canal_with_table_changes.jsonl"
FHOSTILE = "hostile_and_edge_cases.jsonl"
FTICDC = "ticdc_canal_json.jsonl"

ROW_FIELDS = [
    "source_format",
    "operation",
    "source_operation",
    "operation_code",
    "database_name",
    "table_name",
    "primary_key_columns",
    "primary_key",
    "before_image",
    "after_image",
    "changed_columns",
    "column_types",
    "column_jdbc_types",
    "column_jdbc_type_names",
    "event_at",
    "emitted_at",
    "source_position",
    "message_id",
]

OPERATION_CODE = {"INSERT": 1, "UPDATE": 2, "DELETE": 3}  # 000's EventType numbers


def row_change(
    operation: str,
    database: str,
    table: str,
    key_columns: list[str],
    key: str | None,
    before: dict | None,
    after: dict | None,
    changed: list[str],
    event_at: datetime | None,
    emitted_at: datetime | None,
    message_id: str | None,
    types: dict | None = None,
    jdbc_types: dict | None = None,
    jdbc_type_names: dict | None = None,
    source_position: str | None = None,
) -> dict[str, Any]:
    return {
        "source_format": "canal_json",
        "operation": operation,
        "source_operation": operation,
        "operation_code": OPERATION_CODE[operation],
        "database_name": database,
        "table_name": table,
        "primary_key_columns": key_columns,
        "primary_key": key,
        "before_image": before,
        "after_image": after,
        "changed_columns": sorted(changed),
        "column_types": types,
        "column_jdbc_types": jdbc_types,
        "column_jdbc_type_names": jdbc_type_names,
        "event_at": event_at,
        "emitted_at": emitted_at,
        "source_position": source_position,  # canal carries none; TiCDC its commit TSO
        "message_id": message_id,
    }


# The column types of 000's tables, as row_change's types, jdbc_types and jdbc_type_names.
ID_TYPES = {"types": {"ID": "int(11)"}, "jdbc_types": {"ID": 4}, "jdbc_type_names": {"ID": "INTEGER"}}
ID_NAME_TYPES = {
    "types": {"ID": "int(11)", "TEST_NAME": "varchar(255)"},
    "jdbc_types": {"ID": 4, "TEST_NAME": 12},
    "jdbc_type_names": {"ID": "INTEGER", "TEST_NAME": "VARCHAR"},
}
ANNE = {"last_name": "Kretchmar", "id": "1004", "first_name": "Anne", "email": "annek@noanswer.org"}
ANNE_MARIE = {**ANNE, "first_name": "Anne Marie"}
CUSTOMER_COLUMNS = ["last_name", "id", "first_name", "email"]
PRODUCT_BEFORE = {"id": "111", "name": "name", "description": "Big 2-wheel scooter", "weight": "5.15"}
TP_INT_COLUMNS = ("c_bigint", "c_int", "c_mediumint", "c_smallint", "c_tinyint", "id")
PAYMENT = {
    "id": "11",
    "amount": "1234567890.123456789",
    "paid": "true",
    "note": 'café ☕ "quoted"',
    "memo": None,
    "tags": '["a","b"]',
}

# TiCDC's Canal-JSON: one row a message, `old` the whole old row, id 0, `mysqlType` without
# parameters; the commit TSO (`_tidb.commitTs`) is the position and gives the event time.
TP_INT_TYPES = {
    "types": dict(zip(TP_INT_COLUMNS, ("bigint", "int", "mediumint", "smallint", "tinyint", "int"), strict=True)),
    "jdbc_types": dict(zip(TP_INT_COLUMNS, (-5, 4, 4, 5, -6, 4), strict=True)),
    "jdbc_type_names": dict(
        zip(TP_INT_COLUMNS, ("BIGINT", "INTEGER", "INTEGER", "SMALLINT", "TINYINT", "INTEGER"), strict=True)
    ),
}
T_TYPES = {
    "types": {"a": "int", "b": "int"},
    "jdbc_types": {"a": 4, "b": 4},
    "jdbc_type_names": {"a": "INTEGER", "b": "INTEGER"},
}
TP_INT_ROW = dict(
    zip(TP_INT_COLUMNS, ("9223372036854775807", "2147483647", "8388607", "32767", "127", "2"), strict=True)
)
TP_INT_UPDATED = {**TP_INT_ROW, "c_int": "0", "c_tinyint": "0"}
# The TSOs of table t's changes.
T_INSERT = 429918021484544000
T_KEY_CHANGE = 429918021746688005  # UPDATE t SET a = 2 WHERE a = 1, split
T_TO_5, T_TO_6 = 429918022008832004, 429918022008832009  # one ms, logical 4 and 9
T_INSERT_3 = 429918022270976000
T_SWAP = 429918023843840002  # keys 2 and 3 swapped in one transaction, split


def ticdc_change(
    operation: str,
    table: str,
    key: str,
    before: dict | None,
    after: dict | None,
    tso: int,
    ts: int,
    changed: list[str] | None = None,
) -> dict[str, Any]:
    """A row change of test.tp_int (key id) or test.t (key a) from ticdc_canal_json.jsonl."""
    key_column = "id" if table == "tp_int" else "a"
    return row_change(
        operation=operation,
        database="test",
        table=table,
        key_columns=[key_column],
        key=f'{{"{key_column}":"{key}"}}',
        before=before,
        after=after,
        changed=changed or list(after or before or {}),
        event_at=tso_time(tso),
        emitted_at=ms(ts),
        message_id=None,
        source_position=f"tidb:{tso}",
        **(TP_INT_TYPES if table == "tp_int" else T_TYPES),
    )


# (file, line, message_index, row_index) -> the row change.
EXPECTED_ROW_CHANGES = {
    # 000: canal FlatMessages, each line a one-message batch; es/ts in ms; `old` partial.
    (F000, 2, 0, 0): row_change(
        operation="INSERT",
        database="test",
        table="asd_copy",
        key_columns=["ID"],
        key='{"ID":"2223"}',
        before=None,
        after={"ID": "2223"},
        changed=["ID"],
        event_at=ms(1554044748000),
        emitted_at=ms(1554044748117),
        message_id="6",
        **ID_TYPES,
    ),
    (F000, 3, 0, 0): row_change(
        operation="UPDATE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"222"}',
        before={"ID": "2223"},
        after={"ID": "222"},
        changed=["ID"],
        event_at=ms(1554044876000),
        emitted_at=ms(1554044877622),
        message_id="7",
        **ID_TYPES,
    ),
    (F000, 4, 0, 0): row_change(
        operation="DELETE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"222"}',
        before={"ID": "222"},
        after=None,
        changed=["ID"],
        event_at=ms(1554044940000),
        emitted_at=ms(1554044940882),
        message_id="8",
        **ID_TYPES,
    ),
    # Multi-row UPDATE: pkNames repeats "ID" per row; old {"TEST_NAME": null} = was NULL.
    (F000, 9, 0, 0): row_change(
        operation="UPDATE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"22"}',
        before={"ID": "22", "TEST_NAME": None},
        after={"ID": "22", "TEST_NAME": "123"},
        changed=["TEST_NAME"],
        event_at=ms(1554045359000),
        emitted_at=ms(1554045360514),
        message_id="15",
        **ID_NAME_TYPES,
    ),
    (F000, 9, 0, 1): row_change(
        operation="UPDATE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"2223"}',
        before={"ID": "2223", "TEST_NAME": None},
        after={"ID": "2223", "TEST_NAME": "123"},
        changed=["TEST_NAME"],
        event_at=ms(1554045359000),
        emitted_at=ms(1554045360514),
        message_id="15",
        **ID_NAME_TYPES,
    ),
    (F000, 10, 0, 0): row_change(
        operation="DELETE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"22"}',
        before={"ID": "22", "TEST_NAME": "123"},
        after=None,
        changed=["ID", "TEST_NAME"],
        event_at=ms(1554045542000),
        emitted_at=ms(1554045543209),
        message_id="16",
        **ID_NAME_TYPES,
    ),
    (F000, 10, 0, 1): row_change(
        operation="DELETE",
        database="test",
        table="asd",
        key_columns=["ID"],
        key='{"ID":"2223"}',
        before={"ID": "2223", "TEST_NAME": "123"},
        after=None,
        changed=["ID", "TEST_NAME"],
        event_at=ms(1554045542000),
        emitted_at=ms(1554045543209),
        message_id="16",
        **ID_NAME_TYPES,
    ),
    # 001: id 0 (no id), pkNames/mysqlType/sqlType null, numbers as JSON numbers, full `old`,
    # INSERT es 0 (unknown), DELETE's row in `old` with `data` null.
    (F001, 7, 0, 0): row_change(
        operation="INSERT",
        database="inventory",
        table="customers",
        key_columns=[],
        key=None,
        before=None,
        after=ANNE,
        changed=CUSTOMER_COLUMNS,
        event_at=None,
        emitted_at=ms(1465491411815),
        message_id=None,
    ),
    (F001, 8, 0, 0): row_change(
        operation="UPDATE",
        database="inventory",
        table="customers",
        key_columns=[],
        key=None,
        before=ANNE,
        after=ANNE_MARIE,
        changed=["first_name"],
        event_at=ms(1465581029100),
        emitted_at=ms(1465581029523),
        message_id=None,
    ),
    (F001, 9, 0, 0): row_change(
        operation="DELETE",
        database="inventory",
        table="customers",
        key_columns=[],
        key=None,
        before=ANNE_MARIE,
        after=None,
        changed=CUSTOMER_COLUMNS,
        event_at=ms(1465581902300),
        emitted_at=ms(1465581902461),
        message_id=None,
    ),
    # 002's Canal Json DML (the key column itself changes: the key is the after image's).
    (F002, 1, 0, 0): row_change(
        operation="UPDATE",
        database="db_test",
        table="table_test",
        key_columns=["col_pk"],
        key='{"col_pk":"11"}',
        before={"col1": "22", "col2": "22", "col_pk": "22"},
        after={"col1": "11", "col2": "11", "col_pk": "11"},
        changed=["col1", "col2", "col_pk"],
        event_at=ms(1669790847000),
        emitted_at=ms(1669790848072),
        message_id=None,
        types={"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"},
        jdbc_types={"col1": 12, "col2": 12, "col_pk": 12},
        jdbc_type_names={"col1": "VARCHAR", "col2": "VARCHAR", "col_pk": "VARCHAR"},
    ),
    # 004's Canal JSON example: partial old; sqlType 7 is REAL in 002's jdbcType table.
    (F002, 3, 0, 0): row_change(
        operation="UPDATE",
        database="inventory",
        table="products",
        key_columns=["id"],
        key='{"id":"111"}',
        before=PRODUCT_BEFORE,
        after={**PRODUCT_BEFORE, "weight": "5.18"},
        changed=["weight"],
        event_at=ms(1589373560000),
        emitted_at=ms(1589373560798),
        message_id="9",
        types={"id": "INTEGER", "name": "VARCHAR(255)", "description": "VARCHAR(512)", "weight": "FLOAT"},
        jdbc_types={"id": 4, "name": 12, "description": 12, "weight": 7},
        jdbc_type_names={"id": "INTEGER", "name": "VARCHAR", "description": "VARCHAR", "weight": "REAL"},
    ),
    # hostile: the good message of a batch whose other element is 42.
    (FHOSTILE, 8, 0, 0): row_change(
        operation="INSERT",
        database="shop",
        table="orders",
        key_columns=["id"],
        key='{"id":"7"}',
        before=None,
        after={"id": "7", "status": "new"},
        changed=["id", "status"],
        event_at=ms(1700000000000),
        emitted_at=ms(1700000000123),
        message_id=None,
    ),
    # hostile line 15 is an exact redelivery of 000 line 2: not here, the first copy wins.
    # JSON numbers, booleans, unicode, a JSON null and an array; es in seconds, ts 0 (unknown).
    (FHOSTILE, 17, 0, 0): row_change(
        operation="INSERT",
        database="shop",
        table="payments",
        key_columns=[],
        key=None,
        before=None,
        after=PAYMENT,
        changed=list(PAYMENT),
        event_at=sec(1700000003),
        emitted_at=None,
        message_id=None,
    ),
    # TiCDC's Canal-JSON (see ticdc_change): the document's INSERT, UPDATE (whole old row) and
    # DELETE of tp_int; then UPDATE t SET a = 2 WHERE a = 1 split into a DELETE and an INSERT of
    # one TSO (line 11, the INSERT re-sent, is not here); two UPDATEs of one ms landed against
    # their commit order; an INSERT whose `es` is not its TSO's time: its event time is the
    # TSO's; the swap of keys 2 and 3 in one transaction, split: both DELETEs, then both INSERTs.
    (FTICDC, 3, 0, 0): ticdc_change("INSERT", "tp_int", "2", None, TP_INT_ROW, 429819990172237824, 1639633142960),
    (FTICDC, 4, 0, 0): ticdc_change(
        "UPDATE", "tp_int", "2", TP_INT_ROW, TP_INT_UPDATED, 429819995017707523, 1639633160123, ["c_int", "c_tinyint"]
    ),
    (FTICDC, 5, 0, 0): ticdc_change("DELETE", "tp_int", "2", TP_INT_UPDATED, None, 429820002254192640, 1639633188002),
    (FTICDC, 8, 0, 0): ticdc_change("INSERT", "t", "1", None, {"a": "1", "b": "1"}, T_INSERT, 1640007101300),
    (FTICDC, 9, 0, 0): ticdc_change("DELETE", "t", "1", {"a": "1", "b": "1"}, None, T_KEY_CHANGE, 1640007102250),
    (FTICDC, 10, 0, 0): ticdc_change("INSERT", "t", "2", None, {"a": "2", "b": "1"}, T_KEY_CHANGE, 1640007102251),
    (FTICDC, 12, 0, 0): ticdc_change(
        "UPDATE", "t", "2", {"a": "2", "b": "5"}, {"a": "2", "b": "6"}, T_TO_6, 1640007103500, ["b"]
    ),
    (FTICDC, 13, 0, 0): ticdc_change(
        "UPDATE", "t", "2", {"a": "2", "b": "1"}, {"a": "2", "b": "5"}, T_TO_5, 1640007103499, ["b"]
    ),
    (FTICDC, 14, 0, 0): ticdc_change("INSERT", "t", "3", None, {"a": "3", "b": "3"}, T_INSERT_3, 1640007105200),
    (FTICDC, 20, 0, 0): ticdc_change("DELETE", "t", "2", {"a": "2", "b": "6"}, None, T_SWAP, 1640007110300),
    (FTICDC, 21, 0, 0): ticdc_change("DELETE", "t", "3", {"a": "3", "b": "3"}, None, T_SWAP, 1640007110301),
    (FTICDC, 22, 0, 0): ticdc_change("INSERT", "t", "3", None, {"a": "3", "b": "6"}, T_SWAP, 1640007110302),
    (FTICDC, 23, 0, 0): ticdc_change("INSERT", "t", "2", None, {"a": "2", "b": "3"}, T_SWAP, 1640007110303),
}

SCHEMA_FIELDS = [
    "source_format",
    "database_name",
    "table_name",
    "ddl_kind",
    "source_operation",
    "sql_text",
    "table_columns",
    "primary_key_columns",
    "event_at",
    "emitted_at",
    "source_position",
    "message_id",
]


def schema_change(
    kind: str,
    source_operation: str,
    database: str,
    table: str | None,
    sql: str,
    event_at: datetime,
    emitted_at: datetime,
    message_id: str | None,
    columns: list[dict] | None = None,
    key_columns: list[str] | None = None,
    source_position: str | None = None,
) -> dict[str, Any]:
    return {
        "source_format": "canal_json",
        "database_name": database,
        "table_name": table,
        "ddl_kind": kind,
        "source_operation": source_operation,
        "sql_text": sql,
        "table_columns": columns,
        "primary_key_columns": key_columns,
        "event_at": event_at,
        "emitted_at": emitted_at,
        "source_position": source_position,
        "message_id": message_id,
    }


def _column(name: str, position: int) -> dict[str, Any]:
    return {"column_name": name, "ordinal_position": position, "column_type": "varchar(22)", "jdbc_type": 12}


CREATE_TP_INT = (
    "create table tp_int\n(\n    id          int auto_increment,\n    c_tinyint   tinyint   null,\n"
    "    c_smallint  smallint  null,\n    c_mediumint mediumint null,\n    c_int       int       null,\n"
    "    c_bigint    bigint    null,\n    constraint pk\n        primary key (id)\n)"
)

# (file, line, message_index) -> the schema change.
EXPECTED_SCHEMA_CHANGES = {
    (F000, 1, 0): schema_change(
        kind="CREATE",
        source_operation="CREATE",
        database="test",
        table="asd_copy",
        sql="CREATE TABLE `test`.`asd_copy` (\n`ID` int(11) NOT NULL,\nPRIMARY KEY (`ID`)\n)"
        " ENGINE=InnoDB DEFAULT CHARSET=utf8",
        event_at=ms(1554044748000),
        emitted_at=ms(1554044748116),
        message_id="6",
    ),
    (F000, 5, 0): schema_change(
        kind="DROP",
        source_operation="ERASE",
        database="test",
        table="asd",
        sql="DROP TABLE `asd` /* generated by server */",
        event_at=ms(1554045030000),
        emitted_at=ms(1554045031258),
        message_id="9",
    ),
    (F000, 6, 0): schema_change(
        kind="RENAME",
        source_operation="RENAME",
        database="test",
        table="asd",
        sql="alter table `asd_copy` rename to `asd`",
        event_at=ms(1554045087000),
        emitted_at=ms(1554045087466),
        message_id="10",
    ),
    (F000, 7, 0): schema_change(
        kind="ALTER",
        source_operation="ALTER",
        database="test",
        table="asd",
        sql="ALTER TABLE `test`.`asd` ADD COLUMN `TEST_NAME` varchar(255) AFTER `ID`",
        event_at=ms(1554045155000),
        emitted_at=ms(1554045155706),
        message_id="11",
    ),
    (F000, 8, 0): schema_change(
        kind="ALTER",
        source_operation="ALTER",
        database="test",
        table="asd",
        sql="ALTER TABLE `test`.`asd` DROP COLUMN `TEST_NAME`",
        event_at=ms(1554045230000),
        emitted_at=ms(1554045230994),
        message_id="12",
    ),
    # 001's DDL: es/ts in seconds, id 0, database-level QUERY with table "".
    (F001, 1, 0): schema_change(
        kind="QUERY",
        source_operation="QUERY",
        database="dip_test",
        table=None,
        sql="CREATE DATABASE `dip_test` CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci",
        event_at=sec(1655812326),
        emitted_at=sec(1655812326),
        message_id=None,
    ),
    (F001, 2, 0): schema_change(
        kind="QUERY",
        source_operation="QUERY",
        database="dip_test",
        table=None,
        sql="DROP DATABASE IF EXISTS `dip_test`",
        event_at=sec(1655812326),
        emitted_at=sec(1655812326),
        message_id=None,
    ),
    (F001, 3, 0): schema_change(
        kind="CREATE",
        source_operation="CREATE",
        database="dip_test",
        table="customers",
        sql="CREATE TABLE `customers` (\n  `id` int NOT NULL AUTO_INCREMENT,\n"
        "  `first_name` varchar(255) NOT NULL,\n  `last_name` varchar(255) NOT NULL,\n"
        "  `email` varchar(255) NOT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `email` (`email`),\n"
        "  KEY `ix_id` (`id`)\n) ENGINE=InnoDB AUTO_INCREMENT=1041 DEFAULT CHARSET=utf8",
        event_at=sec(1655812326),
        emitted_at=sec(1655812326),
        message_id=None,
    ),
    (F001, 4, 0): schema_change(
        kind="ALTER",
        source_operation="ALTER",
        database="test",
        table="user",
        sql="ALTER TABLE `user` ADD COLUMN `createtime` datetime NULL DEFAULT CURRENT_TIMESTAMP",
        event_at=sec(1655782153),
        emitted_at=sec(1655782153),
        message_id=None,
    ),
    (F001, 5, 0): schema_change(
        kind="DROP",
        source_operation="ERASE",
        database="dip_test",
        table="customers",
        sql="DROP TABLE IF EXISTS `dip_test`.`customers`",
        event_at=sec(1655812326),
        emitted_at=sec(1655812326),
        message_id=None,
    ),
    # ... but this one in ms.
    (F001, 6, 0): schema_change(
        kind="RENAME",
        source_operation="RENAME",
        database="testDB",
        table="t_test",
        sql="rename table test to t_test",
        event_at=ms(1656300979748),
        emitted_at=ms(1656300979748),
        message_id=None,
    ),
    # 002's canal DDL with tableChanges: the table's columns and key after the ALTER.
    (F002, 2, 0): schema_change(
        kind="ALTER",
        source_operation="ALTER",
        database="db_test",
        table="table_test",
        sql="alter table table_test add col2 varchar(22) null",
        event_at=ms(1669790951000),
        emitted_at=ms(1669790952584),
        message_id=None,
        columns=[_column("col1", 0), _column("col2", 1), _column("col_pk", 2)],
        key_columns=["col_pk"],
    ),
    # TiCDC's DDL: the document's database-level QUERY (table ""), CREATE TABLE tp_int as its
    # comparison section prints it, CREATE TABLE t of the split document; id 0.
    **{
        (FTICDC, line, 0): schema_change(
            kind=kind,
            source_operation=kind,
            database="test",
            table=table,
            sql=sql,
            event_at=tso_time(tso),
            emitted_at=ms(ts),
            message_id=None,
            source_position=f"tidb:{tso}",
        )
        for line, kind, table, sql, tso, ts in (
            (1, "QUERY", None, "drop database if exists test", 429819977969172481, 1639633095489),
            (2, "CREATE", "tp_int", CREATE_TP_INT, 429819982113669120, 1639633111032),
            (7, "CREATE", "t", "CREATE TABLE t (a INT PRIMARY KEY, b INT)", 429918021222400000, 1640007100410),
        )
    },
}

# (file, line, message_index) -> reason. Everything rejected is in the hostile files.
EXPECTED_REJECTIONS = {
    # 000's CINDEX example as printed: a missing comma and a trailing comma.
    (FHOSTILE, 1, None): "malformed_json",
    # 000's CREATE example as printed: raw newlines in a string split it over lines 2-5. The
    # batch opening on line 2 cannot be split; lines 3-5 are not JSON at all.
    (FHOSTILE, 2, None): "malformed_json",
    (FHOSTILE, 3, 0): "malformed_json",
    (FHOSTILE, 4, 0): "malformed_json",
    (FHOSTILE, 5, 0): "malformed_json",
    (FHOSTILE, 6, None): "empty_line",
    (FHOSTILE, 7, None): "empty_batch",
    (FHOSTILE, 8, 1): "not_a_json_object",  # the 42 next to a good message
    (FHOSTILE, 9, 0): "invalid_field_type",  # "data":"oops"
    (FHOSTILE, 10, 0): "unknown_event_type",  # UPSERT
    (FHOSTILE, 11, 0): "missing_database",
    (FHOSTILE, 12, 0): "missing_table",
    (FHOSTILE, 13, 0): "malformed_json",  # truncated
    (FHOSTILE, 16, 0): "missing_old_image",  # canal UPDATE without `old`
    # TiCDC: commitTs "abc", 0 and a string of digits; onlyHandleKey on an UPDATE; `_tidb` 5.
    (FTICDC, 15, 0): "invalid_field_type",
    (FTICDC, 16, 0): "invalid_commit_ts",
    (FTICDC, 17, 0): "invalid_field_type",
    (FTICDC, 18, 0): "only_handle_key",
    (FTICDC, 19, 0): "invalid_field_type",
}

RECONCILIATION_FIELDS = [
    "landed_lines",
    "messages",
    "row_change_messages",
    "schema_change_messages",
    "skipped_messages",
    "rejected_messages",
]

EXPECTED_RECONCILIATION = {
    F000: dict(
        landed_lines=10,
        messages=10,
        row_change_messages=5,
        schema_change_messages=5,
        skipped_messages=0,
        rejected_messages=0,
    ),
    F001: dict(
        landed_lines=9,
        messages=9,
        row_change_messages=3,
        schema_change_messages=6,
        skipped_messages=0,
        rejected_messages=0,
    ),
    F002: dict(
        landed_lines=3,
        messages=3,
        row_change_messages=2,
        schema_change_messages=1,
        skipped_messages=0,
        rejected_messages=0,
    ),
    # 17 lines; line 8 holds two messages. Line 15 (the redelivery) counts as a row change
    # message; line 14 (MHEARTBEAT) is skipped.
    FHOSTILE: dict(
        landed_lines=17,
        messages=18,
        row_change_messages=3,
        schema_change_messages=0,
        skipped_messages=1,
        rejected_messages=14,
    ),
    # 23 lines: 14 row changes (line 11 a redelivery), 3 DDL, the watermark skipped, 5 rejected.
    FTICDC: dict(
        landed_lines=23,
        messages=23,
        row_change_messages=14,
        schema_change_messages=3,
        skipped_messages=1,
        rejected_messages=5,
    ),
}


def _by_row_key(rows: list[dict]) -> dict[tuple, dict]:
    keyed = {(file_name(r["file_path"]), r["line_number"], r["message_index"], r["row_index"]): r for r in rows}
    assert len(keyed) == len(rows), "two row changes share file, line, message and row index"
    return keyed


def _by_message_key(rows: list[dict]) -> dict[tuple, dict]:
    keyed = {(file_name(r["file_path"]), r["line_number"], r["message_index"]): r for r in rows}
    assert len(keyed) == len(rows), "two rows share file, line and message index"
    return keyed


def _canal(rows: list[dict]) -> list[dict]:
    """The rows that came from canal_json (the samples hold other formats too)."""
    return [r for r in rows if r["source_format"] == "canal_json"]


def _lines(path: Path) -> list[str]:
    """A file's lines as the spec means them: a final terminator ends the last line."""
    text = path.read_bytes().decode()
    return text.removesuffix("\n").removesuffix("\r").replace("\r\n", "\n").split("\n")


# ------------------------------------------------------------------------- tests: samples


def _counted(counts: Counter[str]) -> str:
    """A report line's breakdown: `name n` by count, the largest first."""
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def test_the_build_ends_with_a_report_of_what_it_loaded(samples: Build) -> None:
    """The on-run-end report counts the rows this run loaded: in a first build, every row."""
    marts = samples.marts()
    files = marts["fct_message_reconciliation"]
    changes = Counter(row["source_format"] for row in marts["fct_row_changes"])
    rejected = Counter(row["reason"] for row in marts["fct_rejected_messages"])
    replicas = Counter(
        row["write_action"] for row in samples.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"]
    )
    output = samples.output_file.read_text()
    lines = sum(row["landed_lines"] for row in files)
    assert f"This run loaded {len(files)} files ({lines} lines):\n" in output
    assert f"  row changes: {sum(changes.values())} ({_counted(changes)})\n" in output
    assert f"  rejected: {sum(rejected.values())} ({_counted(rejected)})\n" in output
    # samples/landing/debezium_json/other_formats_messages.jsonl: a canal and a Maxwell message.
    misplaced = Counter(
        f"{row['likely_format']} in {row['source_format']}/"
        for row in marts["fct_rejected_messages"]
        if row["likely_format"]
    )
    assert misplaced == {"canal_json in debezium_json/": 1, "maxwell_json in debezium_json/": 1}
    assert f"    of them, shaped as another format's (a wrong folder?): 2 ({_counted(misplaced)})\n" in output
    assert f"  replicas: {sum(replicas.values())} (created {replicas['created']})\n" in output
    redelivered = sum(row["redelivered_changes"] for row in files)
    assert f"  redelivered changes left out: {redelivered}\n" in output


def test_the_docs_site_s_catalog_gives_each_table_its_row_count(builds: dict[str, Build]) -> None:
    """`dbt docs generate` after the build: each mart's page shows its rows (the catalog's
    stats), but a view's, which has none before it is queried."""
    docs = builds["samples_docs"]
    docs.wait()
    catalog = json.loads((docs.target_dir / "catalog.json").read_text())["nodes"]
    marts = {name: catalog[f"model.cdc_lakehouse.{name}"] for name in MARTS}
    views = {name for name, node in marts.items() if node["metadata"]["type"] == "view"}
    assert views == {"dim_current_rows"}
    assert all("rows" not in marts[name]["stats"] for name in views)
    for name, rows in builds["samples"].marts().items():
        if name not in views:
            assert (marts[name]["stats"]["rows"]["value"], marts[name]["stats"]["rows"]["include"]) == (len(rows), True)


def test_spark_s_log_keeps_only_what_a_user_can_act_on(samples: Build) -> None:
    """conf/log4j2.properties silences the warnings every build gave and no user can act on."""
    samples.wait()
    log = samples.spark_dir.joinpath("worker.log").read_text() + samples.output_file.read_text()
    for noise in (
        "Couldn't find corresponding Hive SerDe",
        "HiveConf of name",
        "HiveAlterHandler",
        "PYARROW_IGNORE_TIMEZONE",
        "resolves to a loopback address",
        "Ignoring non-Spark config property",
        "Using Spark's default log4j profile",
    ):
        assert noise not in log


def test_build_over_samples_runs_seeds_models_and_data_tests_successfully(samples: Build) -> None:
    samples.wait()
    statuses = samples.run_results()
    # The samples hold changes of tables with no key anywhere: reported, not failed.
    # And the samples' bad messages, rejected by this run.
    assert {uid: s for uid, s in statuses.items() if s not in {"success", "pass"}} == {
        "test.cdc_lakehouse.warn_tables_without_keys": "warn",
        "test.cdc_lakehouse.warn_rejected_messages_this_run": "warn",
    }
    for seed in ("jdbc_types", "canal_event_types", "canal_entry_types"):
        assert statuses[f"seed.cdc_lakehouse.{seed}"] == "success"
    for model in (*MARTS, "int_row_changes_labelled"):
        assert statuses[f"model.cdc_lakehouse.{model}"] == "success"
    assert any(uid.startswith("test.") for uid in statuses), "the build ran no data tests"
    assert samples.spark_setting("spark.sql.ansi.enabled") == "true"


def test_tables_without_a_key_anywhere_are_listed(samples: Build) -> None:
    # Their messages name no key (Debezium values, flattened or not, canal 001, CloudCanal 002,
    # Maxwell's README, GoldenGate's examples without `primary_keys`) and no DDL gave one;
    # Maxwell's page prints its delete of test.e without `ts`, so no DDL key applies to it (the
    # key is the table's at the change's time).
    assert {(r["database_name"], r["table_name"], r["row_changes"]) for r in samples.marts()["dim_keyless_tables"]} == {
        # Debezium's MySQL and PostgreSQL examples count again as Avro (samples/landing/debezium_avro).
        ("inventory", "customers", 13),
        ("outbox", "events", 1),
        ("postgres", "my_table", 1),
        ("shop", "orders", 2),
        ("db_test", "table_test", 3),
        ("shop", "items", 3),
        ("shop", "payments", 3),
        ("test", "maxwell", 2),
        ("test", "e", 1),
        # Debezium's PostgreSQL examples: Postgres sends no DDL, and the value names no key.
        ("postgres.public", "customers", 7),
        ("postgres.archive", "customers", 1),
        ("postgres.public", "documents", 6),
        ("postgres.public", "amounts", 3),
        ("QASOURCE", "TCUSTORD", 3),
    }


def test_row_changes_are_exactly_the_sample_dml_rows(samples: Build) -> None:
    actual = _by_row_key(_canal(samples.marts()["fct_row_changes"]))
    assert len(actual) == 27
    assert _diff(EXPECTED_ROW_CHANGES, actual, ROW_FIELDS) == []


def test_redelivered_insert_appears_once_as_its_first_landed_copy(samples: Build) -> None:
    rows = _canal(samples.marts()["fct_row_changes"])
    copies = [
        r
        for r in rows
        if (r["database_name"], r["table_name"], r["operation"], r["primary_key"])
        == ("test", "asd_copy", "INSERT", '{"ID":"2223"}')
    ]
    assert [(file_name(r["file_path"]), r["line_number"]) for r in copies] == [(F000, 2)]
    # Hostile line 15 is byte for byte 000's line 2, so the redelivery shares its change_id.
    assert _lines(SAMPLES / FHOSTILE)[14] == _lines(SAMPLES / F000)[1]
    change_ids = [r["change_id"] for r in rows]
    assert len(set(change_ids)) == len(change_ids)
    assert all(len(c) == 32 and set(c) <= set("0123456789abcdef") for c in change_ids)


def test_json_numbers_booleans_unicode_and_null_keep_their_exact_text(samples: Build) -> None:
    payments = [r for r in _canal(samples.marts()["fct_row_changes"]) if r["table_name"] == "payments"]
    assert len(payments) == 1
    after = payments[0]["after_image"]
    assert after["amount"] == "1234567890.123456789"  # no rounding through a double
    assert after["id"] == "11"
    assert after["paid"] == "true"
    assert after["note"] == 'café \u2615 "quoted"'
    assert "memo" in after and after["memo"] is None  # a JSON null is a SQL NULL, key kept
    assert after["tags"] == '["a","b"]'
    assert payments[0]["event_at"] == datetime(2023, 11, 14, 22, 13, 23, tzinfo=UTC)


def test_schema_changes_are_exactly_the_sample_ddl_messages(samples: Build) -> None:
    actual = _by_message_key(_canal(samples.marts()["fct_schema_changes"]))
    assert len(actual) == 15
    assert _diff(EXPECTED_SCHEMA_CHANGES, actual, SCHEMA_FIELDS) == []


def test_rejected_messages_are_exactly_the_hostile_lines_with_their_reasons(samples: Build) -> None:
    rows = _canal(samples.marts()["fct_rejected_messages"])
    actual = {(file_name(r["file_path"]), r["line_number"], r["message_index"]): r["reason"] for r in rows}
    assert len(actual) == len(rows)
    assert actual == EXPECTED_REJECTIONS
    for row in rows:
        assert row["source_format"] == "canal_json"
        assert row["payload"] == _lines(SAMPLES / file_name(row["file_path"]))[row["line_number"] - 1], row[
            "line_number"
        ]


def test_reconciliation_accounts_for_every_landed_line_and_message(samples: Build) -> None:
    rows = _canal(samples.marts()["fct_message_reconciliation"])
    actual = {file_name(r["file_path"]): {k: r[k] for k in RECONCILIATION_FIELDS} for r in rows}
    assert len(actual) == len(rows)
    assert actual == EXPECTED_RECONCILIATION
    for name, counts in actual.items():
        assert counts["landed_lines"] == len(_lines(SAMPLES / name)), name
        assert counts["messages"] == sum(
            counts[k] for k in RECONCILIATION_FIELDS if k.endswith("_messages") and k != "messages"
        ), name
    for row in rows:
        assert urlparse(row["file_path"]).path == str(SAMPLES / file_name(row["file_path"]))


def test_sample_replicas_are_typed_from_the_source_types_and_named_by_the_rule(samples: Build) -> None:
    listing = {
        (r["database_name"], r["table_name"]): r["replica_name"]
        for r in samples.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"]
    }
    # shop.items (Debezium) and SHOP.ITEMS (OMS) would both be shop__items: each gets a hash.
    assert listing["shop", "items"] == "shop__items_" + hashlib.sha256(b"shop.items").hexdigest()[:8]
    assert listing["SHOP", "ITEMS"] == "shop__items_" + hashlib.sha256(b"SHOP.ITEMS").hexdigest()[:8]
    assert listing["postgres.public", "amounts"] == "postgres_public__amounts"
    # KafkaRiverCanal's mysqlType: bigint(20), decimal(30,9), varchar(50), tinyint(1) (boolean).
    payments = samples.tables(("shop__payments",), suffix="_replica")["shop__payments"]
    assert payments["types"] == {
        "id": "bigint",
        "amount": "decimal(30,9)",
        "memo": "string",
        "note": "string",
        "paid": "boolean",
        "_overflow": "map<string,string>",
        "_primary_key": "string",
        "_last_change_id": "string",
        "_last_operation": "string",
        "_last_event_at": "timestamp",
        "_loaded_at": "timestamp",
    }
    (row,) = payments["rows"]
    assert {k: row[k] for k in ("id", "amount", "memo", "note", "paid", "_overflow", "_primary_key")} == {
        "id": 11,
        "amount": "1234567890.123456789",
        "memo": "first",
        "note": None,
        "paid": True,
        "_overflow": {},
        "_primary_key": '{"id":"11"}',
    }
    # Bytes: binary where the format's types say which columns hold them (OMS's BINARY), a
    # string where they do not (DTS names a TEXT column BLOB too).
    bytes_columns = samples.tables((listing["shop", "everything"], listing["shop", "things"]), suffix="_replica")
    assert bytes_columns[listing["shop", "everything"]]["types"]["blob"] == "binary"
    assert bytes_columns[listing["shop", "things"]]["types"]["photo"] == "string"


def test_ticdc_split_key_change_and_commit_order_give_the_replicas(samples: Build) -> None:
    # The split UPDATE ends the row under a = 1 and opens it under a = 2 (one TSO); the two
    # UPDATEs of one ms take effect in TSO order, not in the order they landed; the swap's
    # DELETE and INSERT of one key, one TSO, take effect in the order they arrived.
    marts = samples.marts()
    # By key, then start, then end (two versions of a = 2 start in one ms; the open one ends last).
    versions = sorted(
        (
            (
                r["primary_key"],
                r["valid_from"],
                r["row_image"],
                r["valid_to"],
                r["opened_by_operation"],
                r["closed_by_operation"],
            )
            for r in marts["dim_row_versions"]
            if (r["database_name"], r["table_name"]) == ("test", "t")
        ),
        key=lambda v: (v[0], v[1], v[3] is None, v[3] or v[1]),
    )
    assert versions == [
        ('{"a":"1"}', tso_time(T_INSERT), {"a": "1", "b": "1"}, tso_time(T_KEY_CHANGE), "INSERT", "DELETE"),
        ('{"a":"2"}', tso_time(T_KEY_CHANGE), {"a": "2", "b": "1"}, tso_time(T_TO_5), "INSERT", "UPDATE"),
        ('{"a":"2"}', tso_time(T_TO_5), {"a": "2", "b": "5"}, tso_time(T_TO_6), "UPDATE", "UPDATE"),
        ('{"a":"2"}', tso_time(T_TO_6), {"a": "2", "b": "6"}, tso_time(T_SWAP), "UPDATE", "DELETE"),
        ('{"a":"2"}', tso_time(T_SWAP), {"a": "2", "b": "3"}, None, "INSERT", None),
        ('{"a":"3"}', tso_time(T_INSERT_3), {"a": "3", "b": "3"}, tso_time(T_SWAP), "INSERT", "DELETE"),
        ('{"a":"3"}', tso_time(T_SWAP), {"a": "3", "b": "6"}, None, "INSERT", None),
    ]
    current = {
        r["primary_key"]: r["row_image"]
        for r in marts["dim_current_rows"]
        if (r["database_name"], r["table_name"]) == ("test", "t")
    }
    assert current == {'{"a":"2"}': {"a": "2", "b": "3"}, '{"a":"3"}': {"a": "3", "b": "6"}}
    # Line 11 re-sends line 10's INSERT with a new `ts`: the same TSO, so one change, counted.
    (ticdc,) = [r for r in _canal(marts["fct_message_reconciliation"]) if file_name(r["file_path"]) == FTICDC]
    assert ticdc["redelivered_changes"] == 1


# ------------------------------------------------------------- tests: custom landing root

ITEMS_JDBC_NAMES = {"id": "INTEGER", "name": "VARCHAR", "price": "DECIMAL", "tag": None}
ITEMS_COLUMNS = ["id", "name", "price", "tag"]


def _item_change(
    operation: str,
    key: str,
    before: dict | None,
    after: dict | None,
    changed: list[str],
    es: int,
    message_id: str,
) -> dict[str, Any]:
    return row_change(
        operation=operation,
        database="shop",
        table="items",
        key_columns=["id"],
        key=key,
        before=before,
        after=after,
        changed=changed,
        event_at=ms(es),
        emitted_at=ms(es + 100),
        message_id=message_id,
        types=ITEMS_TYPES,
        jdbc_types=ITEMS_JDBC,
        jdbc_type_names=ITEMS_JDBC_NAMES,
    )


EXPECTED_ITEM_CHANGES = {
    (PART_1, 2, 0, 0): _item_change("INSERT", '{"id":"1"}', None, APPLE, ITEMS_COLUMNS, 1700000101000, "2"),
    # The batched line: message 0 renames apple, message 1 inserts fig with a NULL price.
    (PART_1, 4, 0, 0): _item_change("UPDATE", '{"id":"1"}', APPLE, PEAR, ["name"], 1700000102000, "3"),
    (PART_1, 4, 1, 0): _item_change("INSERT", '{"id":"2"}', None, FIG, ITEMS_COLUMNS, 1700000103000, "4"),
    # Second file (CRLF, no final newline): price NULL -> 2.25 is a change; then apple/pear goes.
    (PART_2, 1, 0, 0): _item_change("UPDATE", '{"id":"2"}', FIG, FIG_PRICED, ["price"], 1700000105000, "6"),
    (PART_2, 2, 0, 0): _item_change("DELETE", '{"id":"1"}', PEAR, None, ITEMS_COLUMNS, 1700000106000, "7"),
}


def test_custom_landing_root_gives_the_insert_update_delete_sequence_exactly(custom: Build) -> None:
    custom.wait()
    statuses = custom.run_results()
    # The hostile table's key `two` does not fit its `int`: kept in the replica's `_overflow`, warned.
    assert {uid: s for uid, s in statuses.items() if s not in {"success", "pass"}} == {
        "test.cdc_lakehouse.warn_replica_values_overflow": "warn"
    }
    actual = _by_row_key(custom.marts()["fct_row_changes"])

    def hostile(line: int, operation: str, key: str, value: str) -> dict[str, Any]:
        image = {"id": key, HOSTILE_COLUMN: value}
        return row_change(
            operation=operation,
            database="shop",
            table=HOSTILE_TABLE,
            key_columns=["id"],
            key=f'{{"id":"{key}"}}',
            before=image if operation == "DELETE" else None,
            after=None if operation == "DELETE" else image,
            changed=["id", HOSTILE_COLUMN],
            event_at=ms(1700000108000 + 1000 * line),
            emitted_at=ms(1700000108100 + 1000 * line),
            message_id=str(8 + line),
            types={"id": "int", HOSTILE_COLUMN: "varchar(10)"},
        )

    hostile_changes = {
        (PART_3, 1, 0, 0): hostile(1, "INSERT", "1", "v"),
        (PART_3, 2, 0, 0): hostile(2, "INSERT", "two", "w"),
        (PART_3, 3, 0, 0): hostile(3, "INSERT", "3", "x"),
        (PART_3, 4, 0, 0): hostile(4, "DELETE", "3", "x"),
    }

    def member(line: int, operation: str, before: dict | None, after: dict, changed: list[str]) -> dict[str, Any]:
        es = (1700000201000, 1700000202000, 1700000202000, 1700000203000)[line - 1]
        return row_change(
            operation=operation,
            database="shop",
            table="members",
            key_columns=["id"],
            key='{"id":"1"}',
            before=before,
            after=after,
            changed=changed,
            event_at=ms(es),
            emitted_at=ms(es + 100),
            message_id=str(12 + line),
            types=MEMBERS_TYPES,
        )

    member_changes = {
        (PART_4, 1, 0, 0): member(1, "INSERT", None, ANN, list(ANN)),
        (PART_4, 2, 0, 0): member(2, "UPDATE", ANN, ANN_EMAIL_NULL, ["email", "visits"]),
        (PART_4, 3, 0, 0): member(3, "UPDATE", ANN_EMAIL_NULL, ANNA, ["name", "visits"]),
        (PART_4, 4, 0, 0): member(4, "UPDATE", ANNA, ANNA_EMAIL, ["email", "visits"]),
    }
    assert _diff({**EXPECTED_ITEM_CHANGES, **hostile_changes, **member_changes}, actual, ROW_FIELDS) == []


def test_custom_landing_root_schema_changes_rejections_and_reconciliation(custom: Build) -> None:
    marts = custom.marts()
    schema_changes = _by_message_key(marts["fct_schema_changes"])
    expected_schema_changes = {
        (PART_1, 1, 0): schema_change(
            kind="CREATE",
            source_operation="CREATE",
            database="shop",
            table="items",
            sql="CREATE TABLE items (id int PRIMARY KEY, name varchar(20), price decimal(10,2), tag geometry)",
            event_at=ms(1700000100000),
            emitted_at=ms(1700000100100),
            message_id="1",
        ),
        (PART_1, 5, 0): schema_change(
            kind="CREATE_INDEX",
            source_operation="CINDEX",
            database="shop",
            table="items",
            sql="CREATE INDEX ix_items_name ON items (name)",
            event_at=ms(1700000104000),
            emitted_at=ms(1700000104100),
            message_id="5",
        ),
        (PART_2, 4, 0): schema_change(
            kind="DROP_INDEX",
            source_operation="DINDEX",
            database="shop",
            table="items",
            sql="DROP INDEX ix_items_name ON items",
            event_at=ms(1700000108000),
            emitted_at=ms(1700000108100),
            message_id="8",
        ),
    }
    assert _diff(expected_schema_changes, schema_changes, SCHEMA_FIELDS) == []

    rejected = marts["fct_rejected_messages"]
    assert [
        (file_name(r["file_path"]), r["line_number"], r["message_index"], r["reason"], r["payload"]) for r in rejected
    ] == [(PART_1, 3, None, "empty_line", "")]
    assert rejected[0]["landed_at"] == PART_1_LANDED_AT

    reconciliation = {
        file_name(r["file_path"]): {k: r[k] for k in RECONCILIATION_FIELDS} for r in marts["fct_message_reconciliation"]
    }
    assert reconciliation == {
        PART_1: dict(
            landed_lines=5,
            messages=6,
            row_change_messages=3,
            schema_change_messages=2,
            skipped_messages=0,
            rejected_messages=1,
        ),
        # A missing final terminator loses no line; CRLF gives no extra ones.
        PART_2: dict(
            landed_lines=4,
            messages=4,
            row_change_messages=2,
            schema_change_messages=1,
            skipped_messages=1,
            rejected_messages=0,
        ),
        **{
            part: dict(
                landed_lines=4,
                messages=4,
                row_change_messages=4,
                schema_change_messages=0,
                skipped_messages=0,
                rejected_messages=0,
            )
            for part in (PART_3, PART_4)
        },
    }


VERSION_FIELDS = [
    "database_name",
    "table_name",
    "primary_key",
    "row_image",
    "valid_from",
    "valid_to",
    "is_current",
    "opened_by_operation",
    "closed_by_operation",
]


def _version(key: str, image: dict, opened: str, es: int, closed: str | None, until: int | None) -> dict:
    return {
        "database_name": "shop",
        "table_name": "items",
        "primary_key": key,
        "row_image": image,
        "valid_from": ms(es),
        "valid_to": None if until is None else ms(until),
        "is_current": closed is None,
        "opened_by_operation": opened,
        "closed_by_operation": closed,
    }


def test_custom_landing_root_replicas_hold_every_version_and_the_current_rows(custom: Build) -> None:
    marts = custom.marts()
    change_ids = {
        (file_name(r["file_path"]), r["line_number"], r["message_index"]): r["change_id"]
        for r in marts["fct_row_changes"]
    }
    versions = {(r["primary_key"], r["valid_from"]): r for r in marts["dim_row_versions"] if r["table_name"] == "items"}
    # apple is inserted, renamed pear, deleted; fig is inserted without a price, then priced.
    expected = {
        ('{"id":"1"}', ms(1700000101000)): _version(
            '{"id":"1"}', APPLE, "INSERT", 1700000101000, "UPDATE", 1700000102000
        ),
        ('{"id":"1"}', ms(1700000102000)): _version(
            '{"id":"1"}', PEAR, "UPDATE", 1700000102000, "DELETE", 1700000106000
        ),
        ('{"id":"2"}', ms(1700000103000)): _version(
            '{"id":"2"}', FIG, "INSERT", 1700000103000, "UPDATE", 1700000105000
        ),
        ('{"id":"2"}', ms(1700000105000)): _version('{"id":"2"}', FIG_PRICED, "UPDATE", 1700000105000, None, None),
    }
    assert _diff(expected, versions, VERSION_FIELDS) == []
    assert versions[('{"id":"1"}', ms(1700000101000))]["opened_by_change_id"] == change_ids[(PART_1, 2, 0)]
    assert versions[('{"id":"1"}', ms(1700000102000))]["closed_by_change_id"] == change_ids[(PART_2, 2, 0)]

    current = sorted(marts["dim_current_rows"], key=lambda r: (r["table_name"], r["primary_key"]))
    assert [(r["table_name"], r["primary_key"], r["row_image"], r["last_operation"]) for r in current] == [
        ("items", '{"id":"2"}', FIG_PRICED, "UPDATE"),
        ("members", '{"id":"1"}', ANNA_EMAIL, "UPDATE"),
        (HOSTILE_TABLE, '{"id":"1"}', {"id": "1", HOSTILE_COLUMN: "v"}, "INSERT"),
        (HOSTILE_TABLE, '{"id":"two"}', {"id": "two", HOSTILE_COLUMN: "w"}, "INSERT"),
    ]
    assert current[0]["last_change_id"] == change_ids[(PART_2, 1, 0)]
    assert current[0]["last_event_at"] == ms(1700000105000)
    # The member's versions keep the source's order where two share a time.
    member_versions = sorted(
        (r for r in marts["dim_row_versions"] if r["table_name"] == "members"), key=lambda r: r["change_number"]
    )
    assert [(r["change_number"], r["valid_from"], r["row_image"]) for r in member_versions] == [
        (1, ms(1700000201000), ANN),
        (2, ms(1700000202000), ANN_EMAIL_NULL),
        (3, ms(1700000202000), ANNA),
        (4, ms(1700000203000), ANNA_EMAIL),
    ]


def test_replica_relation_and_replica_changes_give_dbt_show_a_typed_replica_and_net_changes(custom: Build) -> None:
    # The follow-up `dbt show`s: shop.items' replica before the options below applied (its
    # current row, the price as its decimal(10,2)), its net changes over every load, and a
    # replica's casts of text to bytes.
    custom.wait()
    lines = custom.output_file.read_text().splitlines()
    preview = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in lines
        if line.startswith("|") and not set(line) <= set("|- ")
    ]
    assert preview == [
        ["name", "price"],
        ["fig", "2.25"],
        ["primary_key", "change_type", "name"],
        ['{"id":"2"}', "INSERT", "fig"],
        ["latin1", "beyond"],
        ["41FF", "True"],
    ]


def test_replica_options_give_history_with_dbt_snapshot_names_soft_deletes_and_a_name(custom: Build) -> None:
    listing = custom.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"]
    hostile = "shop__we_ird___drop_table_cdc_fct_row_changes____"
    assert sorted((r["table_name"], r["replica_name"]) for r in listing) == [
        ("items", "items"),
        ("members", "members"),
        (HOSTILE_TABLE, hostile),
    ]
    replicas = custom.tables(("items", "members", hostile), suffix="_replica")
    # shop.items: every version (SCD type 2) under dbt snapshot's names, without `tag`; the
    # table of the first build (shop__items) is gone.
    items = replicas["items"]
    assert items["types"] == {
        "id": "int",
        "name": "string",
        "price": "decimal(10,2)",
        "_overflow": "map<string,string>",
        "_primary_key": "string",
        "dbt_scd_id": "string",
        "dbt_updated_at": "timestamp",
        "dbt_valid_from": "timestamp",
        "dbt_valid_to": "timestamp",
        "_loaded_at": "timestamp",
    }
    versions = sorted(
        ((r["id"], r["name"], r["price"], r["dbt_valid_from"], r["dbt_valid_to"]) for r in items["rows"]),
        key=lambda version: (version[0], version[3]),
    )
    assert versions == [
        (1, "apple", "1.50", ms(1700000101000), ms(1700000102000)),
        (1, "pear", "1.50", ms(1700000102000), ms(1700000106000)),
        (2, "fig", None, ms(1700000103000), ms(1700000105000)),
        (2, "fig", "2.25", ms(1700000105000), None),
    ]
    assert all(r["dbt_updated_at"] == r["dbt_valid_from"] and r["_overflow"] == {} for r in items["rows"])
    # The hostile table: names quoted, nothing injected; a deleted row kept (soft deletes); a
    # key that does not fit `int` is null, its text kept in `_overflow`.
    rows = replicas[hostile]
    assert list(rows["types"])[:2] == ["id", HOSTILE_COLUMN]
    assert sorted(
        ((r["id"] or 0, r[HOSTILE_COLUMN], r["_overflow"], r["_is_deleted"], r["_deleted_at"]) for r in rows["rows"]),
        key=lambda row: row[0],
    ) == [
        (0, "w", {"id": "two"}, False, None),
        (1, "v", {}, False, None),
        (3, "x", {}, True, ms(1700000112000)),
    ]
    # shop.members, history with ignore_null_updates and `visits` untracked: the NULL email keeps
    # a@x, so only the visit changed at 202000 (in place); the rename at the same time opens a
    # version, as does the new email.
    members = replicas["members"]
    change_ids = {
        (file_name(r["file_path"]), r["line_number"]): r["change_id"] for r in custom.marts()["fct_row_changes"]
    }
    assert sorted(
        (
            (r["id"], r["name"], r["email"], r["visits"], r["_valid_from"], r["_valid_to"], r["_is_current"])
            + (r["_opened_by_change_id"], r["_opened_by_operation"], r["_closed_by_operation"])
            for r in members["rows"]
        ),
        key=lambda row: row[4],
    ) == [
        (1, "ann", "a@x", 2, ms(1700000201000), ms(1700000202000), False, change_ids[(PART_4, 1)], "INSERT", "UPDATE"),
        (1, "anna", "a@x", 3, ms(1700000202000), ms(1700000203000), False, change_ids[(PART_4, 3)], "UPDATE", "UPDATE"),
        (1, "anna", "b@x", 4, ms(1700000203000), None, True, change_ids[(PART_4, 4)], "UPDATE", None),
    ]
    assert len(custom.tables(("fct_row_changes",))["fct_row_changes"]["rows"]) == len(custom.marts()["fct_row_changes"])


def test_format_folders_missing_from_the_landing_root_give_no_rows_and_fail_nothing(custom: Build) -> None:
    # The custom landing root holds canal_json's folder only; its build succeeded (checked by
    # the harness), and no mart has a row of another format.
    formats = {row["source_format"] for rows in custom.marts().values() for row in rows if "source_format" in row}
    assert formats == {"canal_json"}
