"""A workload captured by a real producer: a throwaway PostgreSQL server with the workload's
tables, Debezium streaming them to a landed file while the workload runs.

`python -m cdc_tools.producers.capture --workload tests/conformance/postgres --output
tests/conformance/corpora` writes the golden corpus the fast tests read: what Debezium sent
(`debezium_postgres.jsonl`) and the source tables after the workload (`debezium_postgres.tables.json`:
each table's column types and rows, as psql gives them)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cdc_tools.producers.postgres import Postgres

DATABASE = "shop"
END_TABLE = "workload_end"  # the workload's last write: once it arrives, all before it has
TIMEOUT_S = 180


def _wait_for_streaming(server: Postgres, producer: subprocess.Popen) -> None:
    """Until the connector reads its replication slot: changes after it are streamed."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if producer.poll() is not None:
            raise RuntimeError("the connector stopped before streaming")
        if server.rows("select active from pg_replication_slots where active", DATABASE):
            return
        time.sleep(0.5)
    raise TimeoutError("the connector did not start streaming")


@contextmanager
def debezium_on_postgres(workload: Path, output: Path, work: Path) -> Iterator[tuple[Postgres, list[str]]]:
    """Runs `workload` (a folder: schema.sql, then workload.sql while Debezium streams) with
    Debezium's values landed in `output`; yields the server, still up, and the workload's
    command tags."""
    server = Postgres()
    server.start()
    try:
        server.execute(f"create database {DATABASE}")
        server.execute((workload / "schema.sql").read_text(), DATABASE)
        log = work / "producer.log"
        with log.open("w") as log_file:
            producer = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "cdc_tools.producers.debezium",
                    "--port",
                    str(server.port),
                    "--database",
                    DATABASE,
                    "--offsets",
                    str(work / "offsets.dat"),
                    "--output",
                    str(output),
                    "--until-table",
                    END_TABLE,
                ],
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
            try:
                _wait_for_streaming(server, producer)
                tags = server.execute((workload / "workload.sql").read_text(), DATABASE)
                if producer.wait(timeout=TIMEOUT_S) != 0:
                    raise RuntimeError(f"the connector failed: {log.read_text()[-4000:]}")
            finally:
                producer.kill()
        yield server, tags
    finally:
        server.stop()


def source_tables(server: Postgres) -> dict[str, dict]:
    """Each table of the public schema: its columns' types as Postgres names them
    (`numeric(14,2)`, `timestamp(6) without time zone`) and its rows (psql's text)."""
    columns = server.rows(
        "select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as data_type"
        " from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace"
        " where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped"
        " order by c.relname, a.attnum",
        DATABASE,
    )
    tables: dict[str, dict] = {}
    for column in columns:
        tables.setdefault(column["table_name"], {"types": {}})["types"][column["column_name"]] = column["data_type"]
    for name, table in tables.items():
        table["rows"] = server.rows(f"select * from {name}", DATABASE)
    return tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, required=True, help="a folder with schema.sql and workload.sql")
    parser.add_argument("--output", type=Path, required=True, help="the corpus folder")
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        landed = args.output / "debezium_postgres.jsonl"
        with debezium_on_postgres(args.workload, landed, Path(work)) as (server, tags):
            tables = {"tags": tags, "tables": source_tables(server)}
    (args.output / "debezium_postgres.tables.json").write_text(json.dumps(tables, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
