"""Unit tests of cdc_lakehouse.avro.container (binary Avro landing): decoding a container file
to JSON-encoded records, and the landing rows of a folder on the shared local SparkSession."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import fastavro
import pytest
from pyspark.sql import DataFrame, SparkSession

from cdc_lakehouse.avro.container import container_records, landed_container_records

# Two record branches of the same shape, told apart only by name, and an enum branch.
SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Row",
    "namespace": "test.avro",
    "fields": [
        {"name": "id", "type": "long"},
        {
            "name": "value",
            "type": [
                "null",
                {"type": "record", "name": "Blob", "fields": [{"name": "value", "type": "bytes"}]},
                {"type": "record", "name": "Geometry", "fields": [{"name": "value", "type": "bytes"}]},
                {"type": "enum", "name": "Empty", "symbols": ["NULL", "NONE"]},
            ],
        },
    ],
}
RECORDS = [
    {"id": 1, "value": ("test.avro.Geometry", {"value": b"\x01\xff"})},
    {"id": 2, "value": ("test.avro.Blob", {"value": b"a\nb"})},
    {"id": 3, "value": "NONE"},
    {"id": 4, "value": None},
]
EXPECTED_JSON = [
    {"id": 1, "value": {"test.avro.Geometry": {"value": "\u0001\u00ff"}}},
    {"id": 2, "value": {"test.avro.Blob": {"value": "a\nb"}}},
    {"id": 3, "value": {"test.avro.Empty": "NONE"}},
    {"id": 4, "value": None},
]


def _container(records: list[dict[str, Any]], sync_interval: int = 16000) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(SCHEMA), records, sync_interval=sync_interval)
    return out.getvalue()


def test_records_decode_to_avro_json_encoding_with_named_branches() -> None:
    decoded = container_records(_container(RECORDS), SCHEMA)
    assert [number for number, _ in decoded] == [1, 2, 3, 4]
    assert [json.loads(payload) for _, payload in decoded] == EXPECTED_JSON
    # One line each: a newline inside a value is escaped, as in a JSON-encoded landed line.
    assert all(payload is not None and "\n" not in payload for _, payload in decoded)
    # The payload reads back with Avro's JSON decoder to the same values.
    back = list(fastavro.json_reader(io.StringIO(decoded[1][1] or ""), SCHEMA))
    assert back == [{"id": 2, "value": {"value": b"a\nb"}}]


@pytest.mark.parametrize("codec", ["deflate", "snappy", "zstandard", "bzip2", "xz"])
def test_compressed_containers_decode_as_uncompressed_ones(codec: str) -> None:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(SCHEMA), RECORDS, codec=codec, sync_interval=1)
    assert [json.loads(payload or "") for _, payload in container_records(out.getvalue(), SCHEMA)] == EXPECTED_JSON


def test_a_string_that_is_not_utf8_reads_as_replacement_characters_and_reading_goes_on() -> None:
    """As in a landed line; strict decoding would lose the record and every one after it."""
    schema = {"type": "record", "name": "Text", "fields": [{"name": "text", "type": "string"}]}
    texts = ["ab", "a\x00\x00b", "cd"]
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), [{"text": text} for text in texts], sync_interval=1)
    # The second record's two NUL bytes become 0xFF 0xFE (same length): not UTF-8.
    damaged = out.getvalue().replace(b"a\x00\x00b", b"a\xff\xfeb")
    decoded = container_records(damaged, schema)
    assert [(number, json.loads(payload or "")["text"]) for number, payload in decoded] == [
        (1, "ab"),
        (2, "a\ufffd\ufffdb"),
        (3, "cd"),
    ]


def test_an_empty_container_has_no_records() -> None:
    assert container_records(_container([]), SCHEMA) == []


@pytest.mark.parametrize("content", [b"", b"not avro at all", b"Obj\x01garbage"], ids=["empty", "text", "bad-header"])
def test_a_file_that_is_not_a_container_gives_one_unreadable_record(content: bytes) -> None:
    assert container_records(content, SCHEMA) == [(1, None)]


def test_a_truncated_container_keeps_the_records_before_the_damage() -> None:
    # One block per record (tiny sync interval), the file cut inside the last block's data (a
    # cut exactly between blocks cannot be seen: a container does not count its records).
    whole = _container(RECORDS, sync_interval=1)
    decoded = container_records(whole[:-17], SCHEMA)
    assert [number for number, _ in decoded] == [1, 2, 3, 4]
    assert [json.loads(payload) for _, payload in decoded[:3] if payload] == EXPECTED_JSON[:3]
    assert decoded[3] == (4, None)


def test_a_corrupt_sync_marker_stops_reading_with_an_unreadable_record() -> None:
    whole = bytearray(_container(RECORDS, sync_interval=1))
    whole[-1] ^= 0xFF  # the last block's sync marker, read after its record
    decoded = container_records(bytes(whole), SCHEMA)
    assert decoded[-1] == (5, None)
    assert [json.loads(payload) for _, payload in decoded[:-1] if payload] == EXPECTED_JSON


def test_a_schema_that_does_not_resolve_is_unreadable() -> None:
    other = {"type": "record", "name": "Other", "fields": [{"name": "x", "type": "string"}]}
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(other), [{"x": "a"}])
    assert container_records(out.getvalue(), SCHEMA) == [(1, None)]


def _landed_files(spark: SparkSession, folder: Path) -> DataFrame:
    """What the landing source of container files holds (macros/landing/create_landing_tables.sql)."""
    files = spark.read.format("binaryFile").option("pathGlobFilter", "*.avro").load(str(folder))
    return files.selectExpr("path as file_path", "content", "modificationTime as landed_at")


def test_landed_container_records_of_a_folder(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "good.avro").write_bytes(_container(RECORDS))
    (tmp_path / "cut.avro").write_bytes(_container(RECORDS, sync_interval=1)[:-17])
    (tmp_path / "lines.jsonl").write_text('{"id": 9, "value": null}\n')  # text landing's, not ours
    os.utime(tmp_path / "good.avro", (1_700_000_000, 1_700_000_000))
    rows = landed_container_records(_landed_files(spark, tmp_path), SCHEMA).collect()
    by_file: dict[str, list[tuple[int, str | None]]] = {}
    for row in rows:
        by_file.setdefault(Path(row.file_path.removeprefix("file:")).name, []).append((row.line_number, row.payload))
    assert sorted(by_file) == ["cut.avro", "good.avro"]
    good = sorted(by_file["good.avro"])
    assert [(n, json.loads(p or "null")) for n, p in good] == list(enumerate(EXPECTED_JSON, 1))
    assert sorted(by_file["cut.avro"])[-1] == (4, None)
    landed = {r.landed_at.timestamp() for r in rows if r.file_path.endswith("good.avro")}
    assert landed == {1_700_000_000}
    assert landed_container_records(_landed_files(spark, tmp_path), SCHEMA).schema.simpleString() == (
        "struct<file_path:string,line_number:int,payload:string,landed_at:timestamp>"
    )


def test_a_folder_without_containers_is_empty(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "lines.jsonl").write_text("{}\n")
    assert landed_container_records(_landed_files(spark, tmp_path), SCHEMA).count() == 0
