"""Avro CDC formats: OceanBase OMS and Aliyun DTS, whose records have one schema each, and
Debezium's, whose records carry Kafka Connect's schemas (`connect`); binary container files and
Kafka values as landed records, and what Spark SQL cannot decode of OMS records."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def record_schema(source_format: str) -> dict[str, Any] | None:
    """The Avro record schema of a format (package data `schemas/<format>.avsc`), with which its
    records are read and given in Avro's JSON encoding; None for a format whose records are Kafka
    Connect's (debezium_avro), each read with its writer's schema and given as Connect's JSON."""
    path = resources.files(__name__).joinpath(f"schemas/{source_format}.avsc")
    if not path.is_file():
        return None
    schema: dict[str, Any] = json.loads(path.read_text())
    return schema
