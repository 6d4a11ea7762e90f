"""An Avro format's Kafka records (landing_source kafka) as text, decoded as they land: each
value is one binary Avro record, its text what a container file's record gives (Avro's JSON
encoding, or Kafka Connect's JSON), and its key's text beside it. A format with a record schema
(DTS, OMS) sends bare Avro bodies of that schema; Debezium's AvroConverter sends Confluent's wire
format, each key and value naming its schema in a registry (`confluent`), read as Kafka
Connect's JSON (`connect`).

A value that cannot be read (not framed, a schema the registry does not know, a body that does
not match its schema or has bytes after it) has no text, which staging rejects with a reason."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import fastavro
import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from cdc_lakehouse.avro.confluent import RegistryClient, body, schema_id
from cdc_lakehouse.avro.connect import connect_reader
from cdc_lakehouse.avro.json_encoding import json_encoder

Decoder = Callable[[bytes], str]


def _schema_id(column: str) -> Column:
    """The schema id a framed binary column names, else NULL: found in Spark SQL, no record
    decoded."""
    framed = (F.length(column) >= 5) & (F.substring(column, 1, 1) == F.unhex(F.lit("00")))
    return F.when(framed, F.conv(F.hex(F.substring(column, 2, 4)), 16, 10).cast("long"))


def registry_schemas(records: DataFrame, registry_url: str) -> dict[int, dict[str, Any]]:
    """The writer schemas the records' keys and values name, from the registry at `registry_url`."""
    ids = [
        row.id
        for row in records.select(F.explode(F.array(_schema_id("value"), _schema_id("key"))).alias("id"))
        .where("id is not null")
        .distinct()
        .collect()
    ]
    if ids and not registry_url:
        raise ValueError("Kafka records name schemas in a registry: set var kafka_schema_registry_url (docs/kafka.md)")
    return RegistryClient(registry_url).schemas(ids) if ids else {}


def fixed_schema_decoder(schema: dict[str, Any]) -> Decoder:
    """A bare Avro body of `schema`, in Avro's JSON encoding."""
    parsed = fastavro.parse_schema(schema)
    encode = json_encoder(parsed)

    def decode(message: bytes) -> str:
        stream = io.BytesIO(message)
        record = fastavro.schemaless_reader(
            stream, parsed, None, return_record_name=True, handle_unicode_errors="replace"
        )
        _read_to_end(stream, message)
        return encode(record)

    return decode


def registry_decoder(schemas: dict[int, dict[str, Any]]) -> Decoder:
    """A message in Confluent's wire format, as Kafka Connect's JSON."""
    readers = {key: connect_reader(schema) for key, schema in schemas.items()}

    def decode(message: bytes) -> str:
        stream = io.BytesIO(body(message))
        text = readers[schema_id(message)](stream)  # type: ignore[index]
        _read_to_end(stream, body(message))
        return text

    return decode


def _read_to_end(stream: io.BytesIO, message: bytes) -> None:
    if stream.tell() != len(message):
        raise ValueError("bytes after the record")


def _text_or_none(decode: Decoder, message: bytes) -> str | None:
    try:
        return decode(message)
    except Exception:  # fastavro raises many kinds; the record is rejected downstream
        return None


def _key_text(decode: Decoder | None, key: bytes | None) -> str | None:
    if key is None:
        return None
    if decode is not None and schema_id(key) is not None:
        return _text_or_none(decode, key)
    return key.decode("utf-8", errors="replace")


def _decode_batches(
    decode: Decoder, keys: Decoder | None, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        values = [
            None if value is None else _text_or_none(decode, value) for value in batch.column("value").to_pylist()
        ]
        record_keys = [_key_text(keys, key) for key in batch.column("key").to_pylist()]
        yield pa.RecordBatch.from_arrays(
            [*batch.columns, pa.array(values, pa.string()), pa.array(record_keys, pa.string())],
            names=[*batch.schema.names, "value_text", "key_text"],
        )


def with_texts(records: DataFrame, schema: dict[str, Any] | None, registry_url: str) -> DataFrame:
    """Kafka `records` (Spark's Kafka source's columns and more) with `value_text` and
    `key_text`: read with the format's record schema, or with `schema` None with the
    registry's (Confluent's framing)."""
    if schema is None:
        decode = registry_decoder(registry_schemas(records, registry_url))
        keys: Decoder | None = decode
    else:
        decode, keys = fixed_schema_decoder(schema), None
    texts = [StructField(name, StringType()) for name in ("value_text", "key_text")]
    out = StructType([*records.schema.fields, *texts])
    return records.mapInArrow(lambda batches: _decode_batches(decode, keys, batches), out)
