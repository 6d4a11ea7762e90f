"""Writes samples/landing/debezium_avro/: the schema-carrying events of Debezium's documentation
in samples/landing/debezium_json/ as
a sink with Debezium's AvroConverter lands them: binary Avro object container files, a new file
where the schema changes (cdc_lakehouse.avro.connect gives the Avro form of a Connect schema),
leaving out what the converter refuses: an event its own schema does not allow (the
documentation's Postgres update with NULLs in required columns) and a schema Avro cannot hold
(a Decimal of scale 20000, above its precision); and one file cut inside its last block. Run from the repo root:
`.venv/bin/python scripts/debezium_avro_samples.py`."""

from __future__ import annotations

import io
import json
from itertools import groupby
from pathlib import Path

import fastavro
from fastavro.schema import SchemaParseException
from fastavro.validation import validate

from cdc_lakehouse.avro.connect import avro_datum, avro_schema

SOURCES = Path("samples/landing/debezium_json")
FOLDER = Path("samples/landing/debezium_avro")
SAMPLES = ("debezium_mysql_connector_docs", "debezium_postgresql_connector_docs")
SYNC_MARKER = b"debezium-sample!"  # fixed, so the files regenerate byte for byte


def container(events: list[dict]) -> bytes | None:
    """The events (of one Connect schema) as one container file, a record per block."""
    try:
        schema = fastavro.parse_schema(avro_schema(events[0]["schema"]))
    except SchemaParseException:
        return None
    out = io.BytesIO()
    records = [avro_datum(event["schema"], event["payload"]) for event in events]
    records = [record for record in records if validate(record, schema, raise_errors=False)]
    fastavro.writer(out, schema, records, sync_interval=1, sync_marker=SYNC_MARKER)
    return out.getvalue()


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for sample in SAMPLES:
        lines = (SOURCES / f"{sample}.jsonl").read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in lines if line.startswith('{"schema":{')]
        runs = [list(run) for _, run in groupby(events, key=lambda event: json.dumps(event["schema"]))]
        files = [content for content in map(container, runs) if content]
        for number, content in enumerate(files, start=1):
            (FOLDER / f"{sample}-{number}.avro").write_bytes(content)
    # 20 bytes short: the last record's block loses its sync marker and the end of its data.
    whole = (FOLDER / "debezium_postgresql_connector_docs-1.avro").read_bytes()
    (FOLDER / "debezium_postgresql_connector_docs-1_truncated.avro").write_bytes(whole[:-20])


if __name__ == "__main__":
    main()
