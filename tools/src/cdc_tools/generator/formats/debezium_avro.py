"""Debezium's change events in Avro, as its AvroConverter writes them with a schema registry:
Debezium JSON's events (debezium_json), every one with its Kafka Connect schema, which Avro
records always carry. Their text form, the lines, is Kafka Connect's JSON; the writer lands the
same records as binary container files, each record's Avro schema the one Kafka Connect's
AvroData gives its Connect schema (`AVRO_FROM_CONNECT`)."""

from __future__ import annotations

from cdc_tools.generator.formats import debezium_json
from cdc_tools.generator.model import Statement

AVRO_FROM_CONNECT = True
RULES = debezium_json.RULES


def encode(statement: Statement) -> list[str]:
    return debezium_json.encode(statement, with_schema=True)
