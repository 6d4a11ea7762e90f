"""A workload captured by real producers: a throwaway database server (PostgreSQL or MariaDB)
with the workload's tables, its producers streaming them to landed files while the workload
runs, crashing midway and starting again.

`python -m cdc_tools.producers.capture --workload tests/conformance/<database> --output
tests/conformance/corpora` writes the golden corpora the fast tests read: what each producer
sent (`<producer>/`: a file before the crash, one after) and the source tables after the
workload (`<database>.tables.json`: each table's column types, primary key and rows, as the
database's own client gives them, and the workload's statement results)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cdc_tools.producers.debezium import OFFSETS_FILE
from cdc_tools.producers.mariadb import MariaDB
from cdc_tools.producers.postgres import Postgres

DATABASE = "shop"
PAUSE_TABLE = "workload_pause"  # where the producers crash and are started again
END_TABLE = "workload_end"  # the workload's last write: once it arrives, all before it has
ANOTHER_SESSION = "-- another session: "
TIMEOUT_S = 180
JARS = Path("jvm/jars")  # what `make setup` fetched, from the repository's folder


@dataclass(frozen=True)
class Producer:
    """A producer: its corpus folder's name, the format it writes, how to run it, and the file of
    its state folder that holds the position it committed (a Debezium engine's offsets; None
    where the producer keeps it elsewhere)."""

    name: str
    format: str
    command: tuple[str, ...]
    offsets: str | None = None

    def state(self, work: Path) -> Path:
        """Its folder of positions and logs, kept across its runs."""
        return work / self.name


SERVERS = {"postgres": Postgres, "mariadb": MariaDB}
PRODUCERS = {
    "postgres": (
        Producer("debezium_postgres", "debezium_json", ("debezium", "--connector", "postgres"), OFFSETS_FILE),
    ),
    "mariadb": (
        Producer("debezium_mariadb", "debezium_json", ("debezium", "--connector", "mariadb"), OFFSETS_FILE),
        Producer("maxwell_mariadb", "maxwell_json", ("maxwell",)),
    ),
}


def _start(producer: Producer, port: int, landing: Path, work: Path, until_table: str, part: str) -> subprocess.Popen:
    output = landing / producer.name / f"{part}.jsonl"
    output.parent.mkdir(parents=True, exist_ok=True)
    state = producer.state(work)
    state.mkdir(parents=True, exist_ok=True)
    module, *options = producer.command
    command = [sys.executable, "-m", f"cdc_tools.producers.{module}", *options, "--port", str(port)]
    command += ["--database", DATABASE, "--state", str(state), "--jars", str(JARS.resolve()), "--output", str(output)]
    command += ["--until-table", until_table, *(["--crash"] if until_table == PAUSE_TABLE else [])]
    with (state / f"{part}.log").open("w") as log:
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


def _other_session(sql: str) -> str:
    """The statements of the workload's other session (its lines `-- another session: ...`,
    comments to this one), run at the same time as the workload: they wait on its locks."""
    return "\n".join(
        line.removeprefix(ANOTHER_SESSION) for line in sql.splitlines() if line.startswith(ANOTHER_SESSION)
    )


def _streaming_position_committed(offsets: Path) -> bool:
    """Whether a Debezium engine's offsets file holds a position past its snapshot: while one
    runs, the offsets name it (`"snapshot":"INITIAL"`, JSON in the Java-serialized map). The
    engine rewrites the file in place at each commit, truncating it first: until the map's end
    is written (the offset's JSON, then `x`, Java's end of block data), it says nothing yet."""
    committed = offsets.read_bytes() if offsets.exists() else b""
    return committed.endswith(b"}x") and b'"snapshot":' not in committed


def _run_while_streaming(
    server: Postgres | MariaDB, producers: list[subprocess.Popen], offsets: list[Path], sql: str
) -> list[str]:
    """Runs `sql` (and, at once, its other session's) once every producer streams and has
    committed a streaming position (each of `offsets`), and waits for them to end (at their
    until-table's change); gives the statements' results. A producer that crashed before such
    a commit would snapshot again on its restart rather than send its last batch again."""
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while server.readers(DATABASE) < len(producers) or not all(map(_streaming_position_committed, offsets)):
            if any(producer.poll() is not None for producer in producers) or time.monotonic() > deadline:
                raise RuntimeError("a producer did not start streaming (its log is in its state folder)")
            time.sleep(0.5)
        with ThreadPoolExecutor() as sessions:
            other = sessions.submit(server.execute, _other_session(sql), DATABASE)
            tags = server.execute(sql, DATABASE) + other.result()
        if any(producer.wait(timeout=TIMEOUT_S) != 0 for producer in producers):
            raise RuntimeError("a producer failed (its log is in its state folder)")
        return tags
    finally:
        for producer in producers:
            producer.kill()


@dataclass
class Capture:
    """A captured workload: the server, still up, the source tables when the producers crashed
    (all they had sent until then is in their first files) and the workload's statement results."""

    server: Postgres | MariaDB
    tables_at_pause: dict[str, dict]
    tags: list[str]

    def tables(self) -> dict[str, dict]:
        return self.server.source_tables(DATABASE)


@contextmanager
def capture(workload: Path, landing: Path, work: Path) -> Iterator[Capture]:
    """Runs `workload` (a folder named for its database: schema.sql if any, which a snapshot
    reads, then workload.sql while its producers stream) with each producer's values landed in
    `landing/<producer>/`: <database>-1.jsonl until it crashes at the write to `workload_pause`,
    <database>-2.jsonl from its restart on (a producer starting late reads from its position)."""
    server = SERVERS[workload.name]()
    server.start()
    try:
        server.execute(f"create database {DATABASE}")
        if (workload / "schema.sql").exists():
            server.execute((workload / "schema.sql").read_text(), DATABASE)
        statements = (workload / "workload.sql").read_text()
        pause = statements.index("\n", statements.index(f"insert into {PAUSE_TABLE}")) + 1
        tags = []
        for part, (until_table, sql) in enumerate(
            ((PAUSE_TABLE, statements[:pause]), (END_TABLE, statements[pause:])), 1
        ):
            started = [
                _start(producer, server.port, landing, work, until_table, f"{workload.name}-{part}")
                for producer in PRODUCERS[workload.name]
            ]
            offsets = [
                producer.state(work) / producer.offsets for producer in PRODUCERS[workload.name] if producer.offsets
            ]
            tags += _run_while_streaming(server, started, offsets, sql)
            if part == 1:
                tables_at_pause = server.source_tables(DATABASE)
        yield Capture(server, tables_at_pause, tags)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", type=Path, required=True, help="a folder with workload.sql (and schema.sql)")
    parser.add_argument("--output", type=Path, required=True, help="the corpus folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work, capture(args.workload, args.output, Path(work)) as captured:
        tables = {"tags": captured.tags, "tables": captured.tables()}
    (args.output / f"{args.workload.name}.tables.json").write_text(
        json.dumps(tables, indent=1, ensure_ascii=False) + "\n"
    )


if __name__ == "__main__":
    main()
