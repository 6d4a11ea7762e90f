"""Avro's JSON encoding to binary container files, keeping every union branch.

fastavro's `json_reader` drops the branch names of unions, and its writer then guesses a
branch from the Python value: a `{"string": ...}` may come back as bytes, and records of the
same shape are confused. Here a JSON-encoded record becomes a fastavro datum whose unions are
`(branch name, value)` tuples, which the writer takes as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import fastavro

Schema = str | list[Any] | dict[str, Any]


def named_types(schema: Schema, found: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """Full name -> definition of every record, enum and fixed type in a parsed schema."""
    found = {} if found is None else found
    if isinstance(schema, list):
        for branch in schema:
            named_types(branch, found)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            found[schema["name"]] = schema
        for value in schema.values():
            if isinstance(value, (dict, list)):
                named_types(value, found)
    return found


def _branch_name(branch: Schema) -> str:
    if isinstance(branch, str):
        return branch
    assert isinstance(branch, dict)
    return str(branch.get("name", branch["type"]))


def datum(schema: Schema, value: Any, types: dict[str, dict[str, Any]]) -> Any:
    """A JSON-encoded value of `schema` as a fastavro datum (bytes as bytes, unions as tuples)."""
    if isinstance(schema, list):
        if value is None:
            return None
        ((name, inner),) = value.items()
        branch = next(b for b in schema if _branch_name(b) == name)
        return (name, datum(branch, inner, types))
    if isinstance(schema, str):
        if schema in types:
            return datum(types[schema], value, types)
        return value.encode("latin-1") if schema == "bytes" else value
    kind = schema["type"]
    if kind == "record":
        return {f["name"]: datum(f["type"], value[f["name"]], types) for f in schema["fields"]}
    if kind == "array":
        return [datum(schema["items"], item, types) for item in value]
    if kind == "map":
        return {key: datum(schema["values"], item, types) for key, item in value.items()}
    if kind == "fixed":
        return value.encode("latin-1")
    if kind == "enum":
        return value
    return datum(kind, value, types)


def write_container(path: Path, schema: dict[str, Any], lines: Iterable[str]) -> int:
    """Writes JSON-encoded records (one per line) as a binary Avro container file; returns
    the number of records."""
    parsed = fastavro.parse_schema(schema)
    types = named_types(parsed)
    records = [datum(parsed, json.loads(line), types) for line in lines]
    with path.open("wb") as out:
        fastavro.writer(out, parsed, records)
    return len(records)
