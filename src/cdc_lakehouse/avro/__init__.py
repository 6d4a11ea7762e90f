"""Avro CDC formats (OceanBase OMS, Aliyun DTS): their record schemas, binary container files as
landed records, and what Spark SQL cannot decode of OMS records."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def record_schema(source_format: str) -> dict[str, Any]:
    """The Avro record schema of a format (package data `schemas/<format>.avsc`), with which its
    binary container files are read."""
    text = resources.files(__name__).joinpath(f"schemas/{source_format}.avsc").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema
