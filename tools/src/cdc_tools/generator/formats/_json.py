"""Compact JSON text as producers send it: no spaces, unicode as is."""

from __future__ import annotations

import json
from typing import Any

from cdc_tools.generator.model import Table

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def json_object(fields: list[tuple[str, str]]) -> str:
    """A JSON object of already serialised values, in order."""
    return "{" + ",".join(f"{dumps(name)}:{value}" for name, value in fields) + "}"


NUMERIC_KINDS = frozenset({"int", "bigint", "decimal"})


def json_value(table: Table, name: str, text: str | None) -> str:
    """A value's canonical text as a producer that types its JSON sends it: a number as a JSON
    number (a decimal keeps its scale), anything else as a string."""
    if text is None or table.column(name).type.kind not in NUMERIC_KINDS:
        return dumps(text)
    return text
