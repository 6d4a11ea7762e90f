"""Avro's JSON encoding read into the datums fastavro writes, keeping each union's branch.

fastavro's own JSON reader drops a union branch's name and its writer then picks the first
branch whose fields fit, which is wrong for branches of the same shape (DTS BinaryGeometry and
BinaryObject, TextGeometry and TextObject). Here a record branch becomes fastavro's
(full name, record) tuple, so a JSON-encoded record and its binary form hold the same value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import fastavro

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_NAMED = frozenset({"record", "enum", "fixed"})
Schema = str | list[Any] | dict[str, Any]


class JsonDatums:
    """Converts values in Avro's JSON encoding of `schema` (a record schema as JSON) to datums."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.named: dict[str, tuple[dict[str, Any], str | None]] = {}
        self._collect(schema, None)

    def __call__(self, value: Any) -> Any:
        return self._datum(self.schema, value, None)

    @staticmethod
    def _full_name(name: str, namespace: str | None) -> str:
        return name if "." in name or not namespace else f"{namespace}.{name}"

    def _collect(self, schema: Schema, namespace: str | None) -> None:
        if isinstance(schema, list):
            for branch in schema:
                self._collect(branch, namespace)
        elif isinstance(schema, dict):
            kind = schema["type"]
            if kind in _NAMED:
                full_name = self._full_name(schema["name"], schema.get("namespace", namespace))
                inner = full_name.rpartition(".")[0] or None
                self.named[full_name] = (schema, inner)
                for field in schema.get("fields", []):
                    self._collect(field["type"], inner)
            elif kind == "array":
                self._collect(schema["items"], namespace)
            elif kind == "map":
                self._collect(schema["values"], namespace)
            else:
                self._collect(kind, namespace)

    def _branch_name(self, schema: Schema, namespace: str | None) -> str:
        if isinstance(schema, str):
            return schema if schema in _PRIMITIVES else self._full_name(schema, namespace)
        assert isinstance(schema, dict)
        if schema["type"] in _NAMED:
            return self._full_name(schema["name"], schema.get("namespace", namespace))
        return schema["type"] if isinstance(schema["type"], str) else self._branch_name(schema["type"], namespace)

    def _datum(self, schema: Schema, value: Any, namespace: str | None) -> Any:
        if isinstance(schema, list):
            return self._union(schema, value, namespace)
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return value.encode("latin-1") if schema == "bytes" else value
            schema, namespace = self.named[self._full_name(schema, namespace)]
        kind = schema["type"]
        if kind == "record":
            inner = self._full_name(schema["name"], schema.get("namespace", namespace)).rpartition(".")[0] or None
            return {
                field["name"]: self._datum(field["type"], value.get(field["name"], field.get("default")), inner)
                for field in schema["fields"]
            }
        if kind == "fixed":
            return value.encode("latin-1")
        if kind == "enum":
            return value
        if kind == "array":
            return [self._datum(schema["items"], item, namespace) for item in value]
        if kind == "map":
            return {key: self._datum(schema["values"], item, namespace) for key, item in value.items()}
        return self._datum(kind, value, namespace)

    def _union(self, branches: list[Any], value: Any, namespace: str | None) -> Any:
        if value is None:
            return None
        if not isinstance(value, dict) or len(value) != 1:
            raise ValueError(f"not a union value in Avro's JSON encoding: {value!r}")
        ((name, inner),) = value.items()
        for branch in branches:
            if self._branch_name(branch, namespace) == name:
                datum = self._datum(branch, inner, namespace)
                is_record = name in self.named and self.named[name][0]["type"] == "record"
                return (name, datum) if is_record else datum
        raise ValueError(f"no union branch {name!r}")


def write_container(path: Path, schema: dict[str, Any], lines: Iterable[str]) -> int:
    """Writes JSON-encoded records (one per line) to an Avro object container file at `path`;
    returns how many it wrote."""
    datums = JsonDatums(schema)
    records = [datums(json.loads(line)) for line in lines]
    with path.open("wb") as out:
        fastavro.writer(out, fastavro.parse_schema(schema), records)
    return len(records)
