"""A source database's value (its client's text of it, with its column's type as Postgres or
MariaDB names it) against what the project made of it: a replica's typed value or a row
image's text."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from cdc_lakehouse.geometry import GEOMETRY_TYPES


def _as_time(value: Any) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _array(text: str) -> list[str | None]:
    """A one-dimensional Postgres array's text (`{"a b",c,NULL}`) as its elements."""
    elements: list[str | None] = []
    for quoted, bare in re.findall(r'"((?:[^"\\]|\\.)*)"|([^,{}]+)', text[1:-1]):
        if bare:
            elements.append(None if bare == "NULL" else bare)
        else:
            elements.append(re.sub(r"\\(.)", r"\1", quoted))
    return elements


def _interval_micros(text: str) -> int:
    """A Postgres interval's text (`1 year 2 mons 3 days 04:05:06.789`) in microseconds as
    Debezium's MicroDuration counts them: a month is 365.25 / 12 days."""
    units = {"year": 12 * 30.4375 * 86400, "mon": 30.4375 * 86400, "day": 86400}
    seconds = sum(int(n) * units[unit] for n, unit in re.findall(r"(-?\d+) (year|mon|day)s?", text))
    clock = re.search(r"(-?)(\d+):(\d+):(\d+(?:\.\d+)?)$", text)
    if clock:
        sign = -1 if clock[1] else 1
        seconds += sign * (int(clock[2]) * 3600 + int(clock[3]) * 60 + float(clock[4]))
    return round(seconds * 1_000_000)


def _time_micros(text: str) -> int:
    """A MariaDB time (`-838:59:58.500000`, hours past a day allowed) in microseconds."""
    sign, hours, minutes, seconds = re.fullmatch(r"(-?)(\d+):(\d+):(\d+(?:\.\d*)?)", text).groups()
    return (-1 if sign else 1) * round((int(hours) * 3600 + int(minutes) * 60 + float(seconds)) * 1_000_000)


def _wkt(text: str) -> str:
    """A geometry's WKT as MariaDB's ST_AsText spells it, with its SRID (the extended form the
    project gives): `POINT (1 2)` and `SRID=0;POINT(1 2)` are one value."""
    text = re.sub(r"\s+\(", "(", text)
    return text if text.startswith("SRID=") else f"SRID=0;{text}"


def same_value(text: str | None, source_type: str, value: Any) -> bool:
    """Whether `value` holds the source's `text` exactly, by the source column's type (as
    Postgres's format_type or MariaDB's column_type names it)."""
    if text is None or value is None:
        return text is None and value is None
    if re.fullmatch(r"bytea|(var)?binary\(\d+\)|(tiny|medium|long)?blob", source_type):
        # psql gives `\x<hex>`, the MariaDB test hex; the project, bytes or their ISO-8859-1 text
        return bytes.fromhex(text.removeprefix("\\x")) == (
            value if isinstance(value, bytes) else value.encode("latin-1")
        )
    if source_type.startswith(("numeric", "decimal")):  # with the column's scale: `11.50`, not `11.5`
        return text == str(value)
    if re.fullmatch(r"(tiny|small|medium|big)?int\(\d+\)( unsigned)?|year\(4\)", source_type):
        return int(text) == int(value)
    if source_type in ("double precision", "real", "double", "float"):
        return float(text) == float(value)
    if source_type in GEOMETRY_TYPES:
        return _wkt(text) == _wkt(str(value))
    if re.fullmatch(r"time\(\d\)", source_type):
        return _time_micros(text) == _time_micros(str(value))
    if source_type == "boolean":
        return {"t": True, "f": False}[text] == (value if isinstance(value, bool) else value == "true")
    if source_type.startswith(("timestamp", "datetime")):  # the sessions' time zone is UTC
        return _as_time(text) == _as_time(value)
    if source_type in ("json", "jsonb"):
        return json.loads(text) == json.loads(value)
    if source_type.endswith("[]"):  # the project gives an array as JSON
        return _array(text) == json.loads(value)
    if source_type == "interval":  # Debezium's default sends microseconds (docs/conformance.md)
        return _interval_micros(text) == int(value)
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
