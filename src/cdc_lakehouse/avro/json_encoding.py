"""Avro's JSON encoding of records fastavro read (with `return_record_name`), text for text as
fastavro's `json_writer` writes it, in about a third of its time (docs/performance-history.md):
the schema is compiled once into a converter from the read record to its JSON value, which
`json.dumps` writes. A union's branch is the one the value names (a record read from a union
comes as (name, record)), else the first whose type the value fits, a float's `double` over
`float`, as fastavro's writer picks it. The formats' record schemas have no logical types; one
that has them is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Convert = Callable[[Any], Any]
INT_RANGE = (-(1 << 31), (1 << 31) - 1)
LONG_RANGE = (-(1 << 63), (1 << 63) - 1)
NAMED_KINDS = ("record", "error", "enum", "fixed")


def json_encoder(parsed_schema: Any) -> Callable[[Any], str]:
    """A record of `parsed_schema` (fastavro.parse_schema's) as one line of Avro's JSON encoding."""
    convert = _Compiler().convert(parsed_schema)
    return lambda record: json.dumps(convert(record))


def _same(value: Any) -> Any:
    return value


def _latin1(value: bytes) -> str:
    return value.decode("iso-8859-1")


def _each_item(convert: Convert) -> Convert:
    return lambda values: [convert(value) for value in values]


def _each_value(convert: Convert) -> Convert:
    return lambda values: {key: convert(value) for key, value in values.items()}


class _Compiler:
    """Converters of a schema's parts. parse_schema defines a named type at its first use and
    names it by its full name after, so its schema and converter are kept by that name."""

    def __init__(self) -> None:
        self.named: dict[str, tuple[dict[str, Any], Convert]] = {}

    def convert(self, schema: Any) -> Convert:
        if isinstance(schema, list):
            return self._union(schema)
        if isinstance(schema, str):
            return self.named[schema][1] if schema in self.named else self.convert({"type": schema})
        if "logicalType" in schema:
            raise ValueError(f"logical type {schema['logicalType']} is not encoded")
        kind = schema["type"]
        if not isinstance(kind, str):
            return self.convert(kind)
        if kind in ("record", "error"):
            return self._record(schema)
        if kind == "array":
            return _each_item(self.convert(schema["items"]))
        if kind == "map":
            return _each_value(self.convert(schema["values"]))
        convert = _latin1 if kind in ("bytes", "fixed") else _same
        if kind in NAMED_KINDS:
            self.named[schema["name"]] = (schema, convert)
        return convert

    def _record(self, schema: dict[str, Any]) -> Convert:
        fields: list[tuple[str, Convert]] = []

        def record(value: dict[str, Any]) -> dict[str, Any]:
            return {name: None if value[name] is None else convert(value[name]) for name, convert in fields}

        self.named[schema["name"]] = (schema, record)  # before its fields: a record may hold itself
        fields.extend((field["name"], self.convert(field["type"])) for field in schema["fields"])
        return record

    def _union(self, branches: list[Any]) -> Convert:
        names = [self._branch_name(branch) for branch in branches]
        converts = [self.convert(branch) for branch in branches]
        kinds = [self._kind(branch) for branch in branches]
        by_name = {name: index for index, name in enumerate(names)}

        def union(value: Any) -> Any:
            if value is None:
                return None
            if isinstance(value, tuple):
                name, value = value
                index = by_name[name]
            else:
                index = _first_fitting(kinds, value)
            return {names[index]: converts[index](value)}

        return union

    def _branch_name(self, schema: Any) -> str:
        if isinstance(schema, str):
            return schema
        return schema["name"] if schema["type"] in NAMED_KINDS else schema["type"]

    def _kind(self, schema: Any) -> dict[str, Any]:
        """The branch's schema as a dict, a named type's definition for its name."""
        if isinstance(schema, str):
            return self.named[schema][0] if schema in self.named else {"type": schema}
        return schema


def _fits(kind: dict[str, Any], value: Any) -> bool:
    number = isinstance(value, int) and not isinstance(value, bool)
    match kind["type"]:
        case "null":
            return value is None
        case "boolean":
            return isinstance(value, bool)
        case "int":
            return number and INT_RANGE[0] <= value <= INT_RANGE[1]
        case "long":
            return number and LONG_RANGE[0] <= value <= LONG_RANGE[1]
        case "float" | "double":
            return number or isinstance(value, float)
        case "string":
            return isinstance(value, str)
        case "bytes":
            return isinstance(value, bytes | bytearray)
        case "fixed":
            return isinstance(value, bytes | bytearray) and len(value) == kind["size"]
        case "enum":
            return isinstance(value, str) and value in kind["symbols"]
        case "array":
            return isinstance(value, list | tuple)
        case "map" | "record" | "error":
            return isinstance(value, dict)
    return False


def _first_fitting(kinds: list[dict[str, Any]], value: Any) -> int:
    """The first branch the value fits; where that is `float`, a later `double` if any."""
    for index, kind in enumerate(kinds):
        if _fits(kind, value):
            if kind["type"] == "float":
                return next(
                    (later for later in range(index + 1, len(kinds)) if kinds[later]["type"] == "double"), index
                )
            return index
    raise ValueError(f"no union branch fits {type(value).__name__}")
