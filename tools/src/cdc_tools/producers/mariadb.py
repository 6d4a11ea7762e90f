"""A throwaway MariaDB server: Debian's binaries, a fresh data folder of its own, on a free
loopback port, with the binary log in ROW format and full row images (what binlog readers
need). The server runs as the user that starts it (as root, with `--user=root`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cdc_tools.producers.postgres import free_port

SERVER_SETTINGS = {
    "bind-address": "127.0.0.1",
    "server-id": "1",
    "log-bin": "binlog",
    "binlog-format": "ROW",
    "binlog-row-image": "FULL",
    "character-set-server": "utf8mb4",
    "collation-server": "utf8mb4_unicode_ci",
    "default-time-zone": "+00:00",
    # `utf8` means utf8mb4, not utf8mb3: Maxwell 1.22 knows no `utf8mb3` (docs/conformance.md).
    "old-mode": "",
    "innodb-flush-log-at-trx-commit": "0",  # a throwaway server: nothing to keep after a crash
    "user": "root",
}
START_TIMEOUT_S = 60
# Each statement the client echoes (`-vvv`) between lines of dashes, and the rows it changed (a
# query's result set has no `Query OK`).
STATEMENT_RESULT = re.compile(r"^-{14}\n(\w+)(?:(?!\n-{14}\n).)*\n-{14}\n\nQuery OK, (\d+) rows? affected", re.M | re.S)
# A column's value as text, by its data type: bytes as hex, bits as their number, geometry as
# extended WKT (with its SRID).
TEXT_OF = {
    "binary|varbinary|tinyblob|blob|mediumblob|longblob": "hex(`{0}`)",
    "bit": "cast(cast(`{0}` as unsigned) as char)",
    "point|linestring|polygon|geometry|multipoint|multilinestring|multipolygon|geometrycollection": "concat('SRID=', st_srid(`{0}`), ';', st_astext(`{0}`))",
}


def _binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise RuntimeError("MariaDB's server is not installed (Debian: apt-get install mariadb-server)")
    return found


@dataclass
class MariaDB:
    """One server in a new folder; `start()` it, query it with `execute` and `source_tables`,
    `stop()` it (which deletes the folder). Its root user has no password; the producers log
    in as `producer` (password `producer`)."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cdc-mariadb-")))
    port: int = field(default_factory=free_port)
    _server: subprocess.Popen | None = field(default=None, init=False, repr=False)

    def start(self) -> None:
        data = self.root / "data"
        install = [_binary("mariadb-install-db"), "--no-defaults", f"--datadir={data}", "--user=root"]
        install += ["--auth-root-authentication-method=normal", "--skip-test-db"]
        done = subprocess.run(install, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {done.stdout}{done.stderr}")
        options = [f"--{name}={value}" for name, value in SERVER_SETTINGS.items()]
        command = [_binary("mariadbd"), "--no-defaults", f"--datadir={data}", f"--port={self.port}"]
        command += [f"--socket={self.root / 'server.sock'}", f"--log-error={self.root / 'server.log'}", *options]
        self._server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while subprocess.run(self._client("select 1"), capture_output=True).returncode != 0:
            if self._server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("mariadbd did not start: " + (self.root / "server.log").read_text()[-2000:])
            time.sleep(0.2)
        self.execute("create user producer identified by 'producer'; grant all on *.* to producer")

    def stop(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server.wait()
        shutil.rmtree(self.root, ignore_errors=True)

    def _client(self, sql: str, database: str = "", *options: str) -> list[str]:
        connection = [
            "--protocol=tcp",
            "-h",
            "127.0.0.1",
            "-P",
            str(self.port),
            "-u",
            "root",
            "--default-character-set=utf8mb4",
        ]
        return [_binary("mariadb"), "--no-defaults", *connection, *options, "-e", sql, database]

    def _run(self, sql: str, database: str, *options: str) -> str:
        done = subprocess.run(self._client(sql, database, *options), capture_output=True)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb failed: {done.stderr.decode()}")
        return done.stdout.decode("utf-8")

    def execute(self, sql: str, database: str = "") -> list[str]:
        """Runs `sql` (statements, each its own transaction unless it says otherwise); gives each
        statement's verb and the rows it changed as Postgres tags them (`INSERT 2`, `BEGIN 0`)."""
        return [f"{verb.upper()} {rows}" for verb, rows in STATEMENT_RESULT.findall(self._run(sql, database, "-vvv"))]

    def rows(self, query: str, database: str = "") -> list[dict[str, str | None]]:
        """The rows of `query` (one JSON object each, which the server builds: no value's text
        is escaped or cut)."""
        return [json.loads(line) for line in self._run(query, database, "--batch", "--raw", "-N").splitlines()]

    def readers(self, database: str) -> int:
        """How many binlog readers (producers) are connected (to any database's changes)."""
        query = (
            "select json_object('n', count(*)) from information_schema.processlist where command like 'Binlog Dump%'"
        )
        return int(self.rows(query)[0]["n"])

    def source_tables(self, database: str) -> dict[str, dict]:
        """Each table of `database`: its columns' types as MariaDB names them (`decimal(14,2)`,
        `bigint(20) unsigned`), its primary key's columns and its rows (each value's text)."""
        columns = self.rows(
            "select json_object('table_name', table_name, 'column_name', column_name, 'data_type', data_type,"
            " 'column_type', column_type, 'in_key', column_key = 'PRI') from information_schema.columns"
            f" where table_schema = '{database}' order by table_name, ordinal_position"
        )
        tables: dict[str, dict] = {}
        for column in columns:
            table = tables.setdefault(column["table_name"], {"types": {}, "key": [], "text": []})
            table["types"][column["column_name"]] = column["column_type"]
            if column["in_key"]:
                table["key"].append(column["column_name"])
            [text] = [text for types, text in TEXT_OF.items() if re.fullmatch(types, column["data_type"])] or [
                "cast(`{0}` as char)"
            ]
            table["text"].append(f"'{column['column_name']}', " + text.format(column["column_name"]))
        for name, table in tables.items():
            table["rows"] = self.rows(f"select json_object({', '.join(table.pop('text'))}) from `{name}`", database)
        return tables
