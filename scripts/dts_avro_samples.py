"""Writes samples/landing/dts_avro/dts_records.avro, the JSON-encoded records of
dts_records.jsonl as a binary Avro object container file (one record per block), and
dts_records_truncated.avro, the same file cut inside its last block. Run from the repo root:
`.venv/bin/python scripts/dts_avro_samples.py`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro

from cdc_lakehouse.avro import record_schema
from cdc_tools.avro_json import JsonDatums

FOLDER = Path("samples/landing/dts_avro")
SYNC_MARKER = b"dts-avro-sample!"  # fixed, so the files regenerate byte for byte


def main() -> None:
    schema = record_schema("dts_avro")
    datums = JsonDatums(schema)
    lines = (FOLDER / "dts_records.jsonl").read_text(encoding="utf-8").splitlines()
    out = io.BytesIO()
    fastavro.writer(
        out,
        fastavro.parse_schema(schema),
        [datums(json.loads(line)) for line in lines],
        sync_interval=1,
        sync_marker=SYNC_MARKER,
    )
    whole = out.getvalue()
    (FOLDER / "dts_records.avro").write_bytes(whole)
    # 20 bytes short: the last record's block loses its sync marker and the end of its data.
    (FOLDER / "dts_records_truncated.avro").write_bytes(whole[:-20])


if __name__ == "__main__":
    main()
