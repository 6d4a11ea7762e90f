"""Unit tests of Debezium's Avro (cdc_lakehouse.avro.connect, .confluent, .values): Kafka
Connect's schemas and records in Avro and back to Kafka Connect's JSON, container files landed
by a sink, Confluent's wire format with a schema registry (cdc_tools.schema_registry serves its
REST API), and Kafka values decoded as they land."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastavro
import pytest
from pyspark.sql import SparkSession

from cdc_lakehouse.avro.confluent import RegistryClient, body, framed, schema_id
from cdc_lakehouse.avro.connect import avro_datum, avro_schema, connect_json, connect_schema, without_logical_types
from cdc_lakehouse.avro.container import container_records
from cdc_lakehouse.avro.values import with_texts
from cdc_tools.schema_registry import SchemaRegistry

SAMPLES = Path(__file__).parents[2] / "samples" / "landing"


def _schema_carrying(sample: str) -> list[dict[str, Any]]:
    lines = (SAMPLES / "debezium_json" / f"{sample}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith('{"schema":{')]


def _binary(schema: Any, datum: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
    return out.getvalue()


# What Debezium's AvroConverter registers for a MySQL table's key and a value's row (Confluent's
# AvroData): an optional field is a union with null and defaults to null, or to its own default
# (then its type comes first); int16 is an int marked `connect.type`; a Decimal is bytes with
# Avro's decimal logical type and its Connect name and parameters.
ROW_SCHEMA = {
    "type": "record",
    "name": "Value",
    "namespace": "shop.shop.items",
    "fields": [
        {"name": "id", "type": "int"},
        {"name": "qty", "type": [{"type": "int", "connect.type": "int16"}, "null"], "default": 1},
        {
            "name": "price",
            "type": [
                "null",
                {
                    "type": "bytes",
                    "scale": 2,
                    "precision": 10,
                    "connect.version": 1,
                    "connect.parameters": {"scale": "2", "connect.decimal.precision": "10"},
                    "connect.name": "org.apache.kafka.connect.data.Decimal",
                    "logicalType": "decimal",
                },
            ],
            "default": None,
        },
        {
            "name": "born_on",
            "type": ["null", {"type": "int", "connect.version": 1, "connect.name": "io.debezium.time.Date"}],
        },
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ],
    "connect.name": "shop.shop.items.Value",
}


def test_an_avro_schema_reads_as_its_kafka_connect_schema() -> None:
    assert connect_schema(ROW_SCHEMA) == {
        "type": "struct",
        "name": "shop.shop.items.Value",
        "optional": False,
        "fields": [
            {"type": "int32", "optional": False, "field": "id"},
            {"type": "int16", "optional": True, "field": "qty"},
            {
                "type": "bytes",
                "name": "org.apache.kafka.connect.data.Decimal",
                "version": 1,
                "parameters": {"scale": "2", "connect.decimal.precision": "10"},
                "optional": True,
                "field": "price",
            },
            {"type": "int32", "name": "io.debezium.time.Date", "version": 1, "optional": True, "field": "born_on"},
            {"type": "array", "items": {"type": "string", "optional": False}, "optional": False, "field": "tags"},
        ],
    }


def test_a_record_reads_as_kafka_connect_json_with_its_values_as_written() -> None:
    """The Decimal stays its unscaled bytes (1234.50 is 123450, base64 AeI6) and the Date its
    day number, as JsonConverter writes them."""
    datum = {"id": 7, "qty": None, "price": b"\x01\xe2\x3a", "born_on": 19326, "tags": ["a"]}
    text = connect_json(connect_schema(ROW_SCHEMA), datum)
    assert json.loads(text)["payload"] == {"id": 7, "qty": None, "price": "AeI6", "born_on": 19326, "tags": ["a"]}


@pytest.mark.parametrize(
    "sample", ["debezium_mysql_connector_docs", "debezium_postgresql_connector_docs", "logical_types"]
)
def test_debeziums_events_go_to_avro_and_back_unchanged(sample: str) -> None:
    """Debezium's documented events (and Connect's logical types): the Avro schema AvroData
    gives each Connect schema, and the record written with it, read back as the same schema
    and payload (an absent `optional: false` is the default)."""
    checked = 0
    for event in _schema_carrying(sample):
        try:
            schema = fastavro.parse_schema(avro_schema(event["schema"]))
            written = _binary(schema, avro_datum(event["schema"], event["payload"]))
        except (ValueError, fastavro.schema.SchemaParseException):
            continue  # what the converter refuses too (scripts/debezium_avro_samples.py)
        back = json.loads(connect_json(connect_schema(avro_schema(event["schema"])), _read_raw(schema, written)))
        assert _without_defaults(back["schema"]) == _without_defaults(event["schema"])
        assert back["payload"] == {key: event["payload"].get(key) for key in back["payload"]}
        checked += 1
    assert checked >= 1


def _read_raw(schema: Any, data: bytes) -> Any:
    return fastavro.schemaless_reader(io.BytesIO(data), fastavro.parse_schema(without_logical_types(schema)), None)


def _without_defaults(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_defaults(item) for item in schema]
    if isinstance(schema, dict):
        return {
            k: _without_defaults(v)
            for k, v in schema.items()
            if not (k == "optional" and v is False) and k != "default"
        }
    return schema


def test_a_sinks_container_files_read_as_the_json_converters_values() -> None:
    """samples/landing/debezium_avro/: each record the same payload as the JSON sample's; a file
    cut inside its last block gives its records before the damage, then an unreadable one."""
    expected = [event["payload"] for event in _schema_carrying("debezium_postgresql_connector_docs")]
    read = [
        json.loads(text or "null")
        for number in (1, 2, 3)
        for _, text in container_records(
            (SAMPLES / "debezium_avro" / f"debezium_postgresql_connector_docs-{number}.avro").read_bytes(), None
        )
    ]
    assert all(text is not None for text in read)
    assert [record["payload"] for record in read] == [
        {key: payload.get(key) for key in record["payload"]}
        for payload, record in zip(_avro_writable(expected), read, strict=True)
    ]
    cut = (SAMPLES / "debezium_avro" / "debezium_postgresql_connector_docs-1_truncated.avro").read_bytes()
    assert container_records(cut, None) == [(1, None)]


def _avro_writable(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documentation's events the converter writes (scripts/debezium_avro_samples.py)."""
    events = _schema_carrying("debezium_postgresql_connector_docs")
    kept = []
    for event, payload in zip(events, payloads, strict=True):
        try:
            schema = fastavro.parse_schema(avro_schema(event["schema"]))
        except fastavro.schema.SchemaParseException:
            continue
        if fastavro.validation.validate(avro_datum(event["schema"], payload), schema, raise_errors=False):
            kept.append(payload)
    return kept


@pytest.fixture(scope="module")
def registry() -> Iterator[SchemaRegistry]:
    with SchemaRegistry() as server:
        yield server


def test_confluents_wire_format_names_its_schema() -> None:
    message = framed(258, b"body")
    assert message == b"\x00\x00\x00\x01\x02body"
    assert (schema_id(message), body(message)) == (258, b"body")
    assert schema_id(b'{"a":1}') is None
    assert schema_id(b"\x00\x00") is None
    assert schema_id(None) is None


def test_a_registry_gives_each_schema_one_id(registry: SchemaRegistry) -> None:
    client = RegistryClient(registry.url)
    first = client.register("items-value", ROW_SCHEMA)
    assert client.register("other-value", ROW_SCHEMA) == first
    assert client.schema(first) == ROW_SCHEMA
    assert client.schemas([first, 999]) == {first: ROW_SCHEMA}


def test_kafka_values_land_with_their_texts(spark: SparkSession, registry: SchemaRegistry) -> None:
    """A framed key and value as Kafka Connect's JSON; a tombstone no text; a value not framed,
    naming a schema the registry lacks, or with bytes after its record, no text either (staging
    rejects it); an unframed key as its UTF-8 text."""
    client = RegistryClient(registry.url)
    key_schema = {
        "type": "record",
        "name": "Key",
        "namespace": "shop.shop.items",
        "fields": [{"name": "id", "type": "int"}],
    }
    value_id, key_id = client.register("items-value", ROW_SCHEMA), client.register("items-key", key_schema)
    datum = {"id": 7, "qty": 2, "price": None, "born_on": None, "tags": []}
    value = framed(value_id, _binary(ROW_SCHEMA, datum))
    rows = [
        (0, framed(key_id, _binary(key_schema, {"id": 7})), value),
        (1, b"7", None),
        (2, None, b'{"id": 7}'),
        (3, None, framed(999, b"\x0e")),
        (4, None, value + b"\x00"),
    ]
    records = spark.createDataFrame(rows, "offset bigint, key binary, value binary")
    texts = {row.offset: (row.key_text, row.value_text) for row in with_texts(records, None, registry.url).collect()}
    key_text, value_text = texts.pop(0)
    assert json.loads(key_text) == {"schema": connect_schema(key_schema), "payload": {"id": 7}}
    assert json.loads(value_text) == {"schema": connect_schema(ROW_SCHEMA), "payload": datum}
    assert texts == {1: ("7", None), 2: (None, None), 3: (None, None), 4: (None, None)}


def test_records_naming_schemas_need_a_registry(spark: SparkSession) -> None:
    records = spark.createDataFrame([(None, framed(1, b""))], "key binary, value binary")
    with pytest.raises(ValueError, match="kafka_schema_registry_url"):
        with_texts(records, None, "")
