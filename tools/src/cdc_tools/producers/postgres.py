"""A throwaway PostgreSQL server: Debian's binaries, a fresh cluster in a folder of its own, on
a free loopback port, with logical decoding on (what Debezium's `pgoutput` reading needs).
PostgreSQL will not run as root: as root, the server and its tools run as the `postgres` user, in
a folder of /tmp it owns (pytest's own folders are root's alone)."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "wal_level": "logical",
    "max_replication_slots": "4",
    "max_wal_senders": "4",
    "fsync": "off",  # a throwaway cluster: nothing to keep after a crash
    "TimeZone": "UTC",
}


def binaries() -> Path:
    """The newest installed server's bin folder (Debian's /usr/lib/postgresql/<major>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda path: int(path.parts[-3]))
    if not found:
        raise RuntimeError("PostgreSQL's server is not installed (Debian: apt-get install postgresql)")
    return found[-1].parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Postgres:
    """One cluster in a new folder; `start()` it, query it with `execute` and `rows`, `stop()` it
    (which deletes the folder)."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cdc-postgres-")))
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def _as_owner(self, command: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(self._as_owner(command), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stdout}{done.stderr}")

    def start(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        bin_ = binaries()
        self._run([str(bin_ / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        options = " ".join(f"-c {name}={value}" for name, value in SERVER_SETTINGS.items())
        self._run(
            [
                str(bin_ / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "server.log"),
                "-w",
                "start",
                "-o",
                f"-p {self.port} -k {self.root} {options}",
            ]
        )

    def stop(self) -> None:
        if self.data.exists():
            self._run([str(binaries() / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])
        shutil.rmtree(self.root, ignore_errors=True)

    def _psql(self, sql: str, database: str, *options: str) -> str:
        psql = [str(binaries() / "psql"), "-X", "-v", "ON_ERROR_STOP=1", *options]
        connection = ["-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database]
        done = subprocess.run([*psql, *connection], input=sql, text=True, capture_output=True)
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr}")
        return done.stdout

    def execute(self, sql: str, database: str = "postgres") -> list[str]:
        """Runs `sql` (statements, one transaction each unless it says otherwise) with psql; gives
        each statement's command tag (`INSERT 0 2`, `UPDATE 1`, `BEGIN`, ...), not a query's rows."""
        return [
            line for line in self._psql(sql, database).splitlines() if re.fullmatch(r"[A-Z]+( [A-Z]+)*( \d+)*", line)
        ]

    def rows(self, query: str, database: str = "postgres") -> list[dict[str, str | None]]:
        """The rows of `query` as psql's CSV gives them: text, NULL as None."""
        text = self._psql(f"\\copy ({query}) to stdout with (format csv, header, null '\\N')", database, "-q")
        rows = csv.DictReader(io.StringIO(text))
        return [{name: None if value == "\\N" else value for name, value in row.items()} for row in rows]

    def readers(self, database: str) -> int:
        """How many logical replication readers (producers) stream from `database`."""
        return len(self.rows("select active from pg_replication_slots where active", database))

    def source_tables(self, database: str) -> dict[str, dict]:
        """Each table of the public schema: its columns' types as Postgres names them
        (`numeric(14,2)`, `timestamp(6) without time zone`), its primary key's columns and its
        rows (psql's text)."""
        columns = self.rows(
            "select c.relname as table_name, a.attname as column_name,"
            " format_type(a.atttypid, a.atttypmod) as data_type, coalesce(a.attnum = any(i.indkey), false) as in_key"
            " from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace"
            " left join pg_index i on i.indrelid = c.oid and i.indisprimary"
            " where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped"
            " order by c.relname, a.attnum",
            database,
        )
        tables: dict[str, dict] = {}
        for column in columns:
            table = tables.setdefault(column["table_name"], {"types": {}, "key": []})
            table["types"][column["column_name"]] = column["data_type"]
            if column["in_key"] == "t":
                table["key"].append(column["column_name"])
        for name, table in tables.items():
            table["rows"] = self.rows(f"select * from {name}", database)
        return tables
