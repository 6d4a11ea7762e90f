"""A workload captured by a real producer: a throwaway PostgreSQL server with the workload's
tables, Debezium streaming them to landed files while the workload runs, crashing midway and
starting again.

`python -m cdc_tools.producers.capture --workload tests/conformance/postgres --output
tests/conformance/corpora` writes the golden corpus the fast tests read: what Debezium sent
(`debezium_postgres/`: a file before the crash, one after) and the source tables after the
workload (`debezium_postgres.tables.json`: each table's column types, primary key and rows, as
psql gives them, and the workload's command tags)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cdc_tools.producers.postgres import Postgres

DATABASE = "shop"
PAUSE_TABLE = "workload_pause"  # where the producer crashes and is started again
END_TABLE = "workload_end"  # the workload's last write: once it arrives, all before it has
TIMEOUT_S = 180


def _producer(server: Postgres, output: Path, work: Path, until_table: str, crash: bool) -> subprocess.Popen:
    command = [sys.executable, "-m", "cdc_tools.producers.debezium", "--port", str(server.port)]
    command += ["--database", DATABASE, "--offsets", str(work / "offsets.dat"), "--output", str(output)]
    command += ["--until-table", until_table, *(["--crash"] if crash else [])]
    with (work / f"{output.stem}.log").open("w") as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


def _run_while_streaming(server: Postgres, producer: subprocess.Popen, sql: str) -> list[str]:
    """Runs `sql` once the connector reads its replication slot, and waits for the producer to
    end (at its until-table's change); gives the statements' command tags."""
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not server.rows("select active from pg_replication_slots where active", DATABASE):
            if producer.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the connector did not start streaming")
            time.sleep(0.5)
        tags = server.execute(sql, DATABASE)
        if producer.wait(timeout=TIMEOUT_S) != 0:
            raise RuntimeError("the connector failed (its log is beside the offsets)")
        return tags
    finally:
        producer.kill()


@dataclass
class Capture:
    """A captured workload: the server, still up, the source tables when the producer crashed
    (all it had sent until then is in the first file) and the workload's command tags."""

    server: Postgres
    tables_at_pause: dict[str, dict]
    tags: list[str]


@contextmanager
def debezium_on_postgres(workload: Path, landing: Path, work: Path) -> Iterator[Capture]:
    """Runs `workload` (a folder: schema.sql, then workload.sql while Debezium streams) with
    Debezium's values landed in `landing`: postgres-1.jsonl until the producer crashes at the
    write to `workload_pause`, postgres-2.jsonl from its restart on."""
    server = Postgres()
    server.start()
    try:
        server.execute(f"create database {DATABASE}")
        server.execute((workload / "schema.sql").read_text(), DATABASE)
        statements = (workload / "workload.sql").read_text()
        pause = statements.index("\n", statements.index(f"insert into {PAUSE_TABLE}")) + 1
        tags = _run_while_streaming(
            server, _producer(server, landing / "postgres-1.jsonl", work, PAUSE_TABLE, crash=True), statements[:pause]
        )
        tables_at_pause = source_tables(server)
        tags += _run_while_streaming(
            server, _producer(server, landing / "postgres-2.jsonl", work, END_TABLE, crash=False), statements[pause:]
        )
        yield Capture(server, tables_at_pause, tags)
    finally:
        server.stop()


def source_tables(server: Postgres) -> dict[str, dict]:
    """Each table of the public schema: its columns' types as Postgres names them
    (`numeric(14,2)`, `timestamp(6) without time zone`), its primary key's columns and its rows
    (psql's text)."""
    columns = server.rows(
        "select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as data_type,"
        " coalesce(a.attnum = any(i.indkey), false) as in_key"
        " from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace"
        " left join pg_index i on i.indrelid = c.oid and i.indisprimary"
        " where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped"
        " order by c.relname, a.attnum",
        DATABASE,
    )
    tables: dict[str, dict] = {}
    for column in columns:
        table = tables.setdefault(column["table_name"], {"types": {}, "key": []})
        table["types"][column["column_name"]] = column["data_type"]
        if column["in_key"] == "t":
            table["key"].append(column["column_name"])
    for name, table in tables.items():
        table["rows"] = server.rows(f"select * from {name}", DATABASE)
    return tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, required=True, help="a folder with schema.sql and workload.sql")
    parser.add_argument("--output", type=Path, required=True, help="the corpus folder")
    args = parser.parse_args()
    landing = args.output / "debezium_postgres"
    landing.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        with debezium_on_postgres(args.workload, landing, Path(work)) as capture:
            tables = {"tags": capture.tags, "tables": source_tables(capture.server)}
    (args.output / "debezium_postgres.tables.json").write_text(json.dumps(tables, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
