"""Binary Avro object container files (`*.avro`) of a landing folder, as landing rows: one row
per record, its payload the record as text (what a landed line of the format holds: Avro's JSON
encoding, or Kafka Connect's JSON for Connect's records), so one decoder serves both encodings.

Each file is read whole (the landing source, Spark's `binaryFile` data source) and decoded by
fastavro inside `mapInArrow`: one Python call per Arrow batch of files, not per row. A file that
cannot be read to its end (corrupt, truncated, not Avro, or written with a schema that does not
resolve to the expected one) still gives a row: the records before the damage, then one row with
a NULL payload at the record number where reading stopped, which staging rejects with a reason.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import fastavro
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.types import IntegerType, StringType, StructField, StructType, TimestampType

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.connect import connect_reader
from cdc_lakehouse.avro.json_encoding import json_encoder
from cdc_lakehouse.incremental import files_not_loaded, load_time

LANDING_SCHEMA = StructType(
    [
        StructField("file_path", StringType()),
        StructField("line_number", IntegerType()),
        StructField("payload", StringType()),
        StructField("landed_at", TimestampType()),
    ]
)
_ROWS_PER_BATCH = 10_000


def container_records(content: bytes, schema: dict[str, Any] | None) -> list[tuple[int, str | None]]:
    """(1-based record number, record as text) for each record of one container file, read with
    the format's record schema (its records in Avro's JSON encoding), or with `schema` None with
    the file's own (Kafka Connect's records, as Connect's JSON); where reading fails, one last
    (record number, None)."""
    texts, complete = _connect_texts(content) if schema is None else _json_encoded_texts(content, schema)
    numbered: list[tuple[int, str | None]] = list(enumerate(texts, start=1))
    if not complete:
        numbered.append((len(texts) + 1, None))
    return numbered


def _json_encoded_texts(content: bytes, schema: dict[str, Any]) -> tuple[list[str], bool]:
    parsed = fastavro.parse_schema(schema)
    records: list[Any] = []
    try:
        # Record names are kept: two union branches of the same shape (e.g. DTS BinaryGeometry
        # and BinaryObject) are told apart only by name.
        # Bytes that are not UTF-8 in a string read as U+FFFD, as in a landed line: the record
        # is kept, and the records after it (strict decoding would stop the file there).
        reader = fastavro.reader(io.BytesIO(content), return_record_name=True, handle_unicode_errors="replace")
        # Schema resolution may pick a promotable branch over the written one (a union listing
        # bytes before string reads a string as bytes), so a file written with the expected
        # schema is read as written; only another schema is resolved to it.
        if fastavro.parse_schema(reader.writer_schema) != parsed:
            reader = fastavro.reader(
                io.BytesIO(content), reader_schema=parsed, return_record_name=True, handle_unicode_errors="replace"
            )
        for record in reader:
            records.append(record)
    except Exception:  # fastavro raises many kinds (EOFError, ValueError, SchemaResolutionError...)
        return json_encoded(parsed, records), False
    return json_encoded(parsed, records), True


def json_encoded(parsed_schema: dict[str, Any], records: list[Any]) -> list[str]:
    """The records in Avro's JSON encoding, one string each (JSON escapes every newline)."""
    encode = json_encoder(parsed_schema)
    return [encode(record) for record in records]


def _connect_texts(content: bytes) -> tuple[list[str], bool]:
    texts: list[str] = []
    try:
        blocks = fastavro.block_reader(io.BytesIO(content))
        read = connect_reader(blocks.writer_schema)
        for block in blocks:
            texts += [read(block.bytes_) for _ in range(block.num_records)]
    except Exception:
        return texts, False
    return texts, True


def _decode_batches(schema: dict[str, Any] | None, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: batches of landed files in, batches of landing rows out."""
    out_schema = pa.schema([("file_path", pa.string()), ("line_number", pa.int32()), ("payload", pa.string())])
    for batch in batches:
        paths = batch.column("file_path").to_pylist()
        contents = batch.column("content").to_pylist()
        modified = batch.column("landed_at")
        rows: dict[str, list[Any]] = {"file_path": [], "line_number": [], "payload": []}
        file_indexes: list[int] = []
        for index, (path, content) in enumerate(zip(paths, contents, strict=True)):
            for number, payload in container_records(content or b"", schema):
                rows["file_path"].append(path)
                rows["line_number"].append(number)
                rows["payload"].append(payload)
                file_indexes.append(index)
                if len(file_indexes) >= _ROWS_PER_BATCH:
                    yield _landing_batch(out_schema, rows, modified, file_indexes)
                    rows = {name: [] for name in rows}
                    file_indexes = []
        if file_indexes:
            yield _landing_batch(out_schema, rows, modified, file_indexes)


def _landing_batch(
    out_schema: pa.Schema, rows: dict[str, list[Any]], modified: pa.Array, file_indexes: list[int]
) -> pa.RecordBatch:
    columns = pa.Table.from_pydict(rows, schema=out_schema)
    landed_at = modified.take(pa.array(file_indexes, pa.int32()))
    return pa.RecordBatch.from_arrays(
        [*columns.combine_chunks().to_batches()[0].columns, landed_at],
        names=[*out_schema.names, "landed_at"],
    )


def landed_container_records(files: DataFrame, schema: dict[str, Any] | None) -> DataFrame:
    """One landing row (file_path, line_number, payload, landed_at) per record of each landed
    container file (`files`: file_path, content, landed_at)."""
    return files.select("file_path", "content", "landed_at").mapInArrow(
        lambda batches: _decode_batches(schema, batches), LANDING_SCHEMA
    )


def new_container_records(files: DataFrame, loaded: DataFrame | None, source_format: str) -> DataFrame:
    """A format's base_<format>__container_records: the records of the container files (its
    `landed_container_files` source) not in `loaded` (the model's table in an incremental run,
    None otherwise), read with the format's record schema, or their own, stamped with their
    load time."""
    new_files = files_not_loaded(files, loaded)
    return landed_container_records(new_files, record_schema(source_format)).withColumn("loaded_at", load_time())
