"""A source database's value (psql's text of it, with its column's type) against what the
project made of it: a replica's typed value or a row image's text."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any


def _as_time(value: Any) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def same_value(text: str | None, source_type: str, value: Any) -> bool:
    """Whether `value` holds the source's `text` exactly, by the source column's type (as
    Postgres's format_type names it)."""
    if text is None or value is None:
        return text is None and value is None
    if source_type == "bytea":  # psql gives `\x<hex>`; the project, bytes or their ISO-8859-1 text
        return bytes.fromhex(text[2:]) == (value if isinstance(value, bytes) else value.encode("latin-1"))
    if source_type.startswith("numeric"):  # with the column's scale: `11.50`, not `11.5`
        return text == str(value)
    if source_type in ("double precision", "real"):
        return float(text) == float(value)
    if source_type == "boolean":
        return {"t": True, "f": False}[text] == (value if isinstance(value, bool) else value == "true")
    if source_type.startswith("timestamp"):  # psql's session time zone is UTC
        return _as_time(text) == _as_time(value)
    if source_type in ("json", "jsonb"):
        return json.loads(text) == json.loads(value)
    return text == str(value)


def differences(table: dict[str, Any], key: str, copies: dict[str, dict[str, Any]]) -> list[tuple]:
    """(key, column, source text, copy) of each value of `table` (types and rows, as the corpus
    holds them) that `copies` (the project's rows by key text) does not hold exactly."""
    return [
        (row[key], column, text, copies[row[key]].get(column))
        for row in table["rows"]
        for column, text in row.items()
        if not same_value(text, table["types"][column], copies[row[key]].get(column))
    ]
