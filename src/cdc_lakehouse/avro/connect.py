"""Kafka Connect records in Avro, as Confluent's and Apicurio's AvroConverter write them
(`AvroData`): a Connect schema becomes an Avro schema whose `connect.*` properties keep what
Avro cannot say (`connect.name`, `connect.version`, `connect.parameters`, `connect.type` for
int8 and int16, `connect.default`), an optional schema a union with null.

Reading turns an Avro record back into what Kafka Connect's JsonConverter writes for the same
record, `{"schema": ..., "payload": ...}`: Debezium's JSON staging then reads Avro as it reads
JSON. Bytes (and Decimal, whose unscaled bytes it is) become base64 and a float32 its shortest
decimal, as JsonConverter writes them. Writing (Connect JSON to an Avro schema and datum) serves
the tests' producers and the generator."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable
from typing import IO, Any

import fastavro

_PRIMITIVES = {
    "int": "int32",
    "long": "int64",
    "float": "float32",
    "double": "float64",
    "boolean": "boolean",
    "string": "string",
    "bytes": "bytes",
    "fixed": "bytes",
    "enum": "string",
}
_AVRO_TYPES = {"int8": "int", "int16": "int", "int32": "int", "int64": "long", "float32": "float", "float64": "double"}
_AVRO_LOGICAL = {
    "decimal": "org.apache.kafka.connect.data.Decimal",
    "date": "org.apache.kafka.connect.data.Date",
    "time-millis": "org.apache.kafka.connect.data.Time",
    "timestamp-millis": "org.apache.kafka.connect.data.Timestamp",
}
_DECIMAL = "org.apache.kafka.connect.data.Decimal"
# The properties that keep what Avro cannot say, and the Connect schema's keys they keep.
_PROPS = (
    ("connect.name", "name"),
    ("connect.version", "version"),
    ("connect.parameters", "parameters"),
    ("connect.doc", "doc"),
)
# AvroData's name for a struct without one.
_DEFAULT_RECORD = "io.confluent.connect.avro.ConnectDefault"


def connect_schema(avro: Any, names: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Connect schema (JsonConverter's JSON form) of an Avro schema."""
    names = {} if names is None else names
    if isinstance(avro, list):
        branches = [branch for branch in avro if branch != "null"]
        if len(branches) != 1 or len(avro) != 2:
            raise ValueError(f"a union other than an optional value: {avro}")
        return {**connect_schema(branches[0], names), "optional": True}
    if isinstance(avro, str):
        if avro in names:
            return names[avro]
        avro = {"type": avro}
    kind = avro["type"]
    if isinstance(kind, (dict, list)) or kind in names:
        return connect_schema(kind, names)
    schema: dict[str, Any]
    if kind == "record":
        name = _full_name(avro)
        schema = {"type": "struct", "fields": []}
        names[name] = schema
        schema["fields"] = [
            {**connect_schema(field["type"], names), "field": field["name"]} for field in avro["fields"]
        ]
        if name != _DEFAULT_RECORD:
            schema["name"] = name
    elif kind == "array":
        schema = {"type": "array", "items": connect_schema(avro["items"], names)}
    elif kind == "map":
        schema = {
            "type": "map",
            "keys": {"type": "string", "optional": False},
            "values": connect_schema(avro["values"], names),
        }
    else:
        schema = {"type": avro.get("connect.type", _PRIMITIVES[kind])}
        if kind in ("enum", "fixed"):
            names[_full_name(avro)] = {**schema, "optional": False}
    logical = _AVRO_LOGICAL.get(avro.get("logicalType", ""))
    if logical == _DECIMAL:
        schema["parameters"] = {"scale": str(avro.get("scale", 0)), "connect.decimal.precision": str(avro["precision"])}
    if kind == "record" and "doc" in avro:
        schema["doc"] = avro["doc"]
    for prop, key in _PROPS:
        if prop in avro:
            schema[key] = avro[prop]
    if logical and "name" not in schema:
        schema["name"] = logical
    if "connect.default" in avro:
        schema["default"] = avro["connect.default"]
    schema.setdefault("optional", False)
    return schema


def _full_name(avro: dict[str, Any]) -> str:
    name: str = avro["name"]
    return name if "." in name or not avro.get("namespace") else f"{avro['namespace']}.{name}"


def without_logical_types(avro: Any) -> Any:
    """The Avro schema without `logicalType`s, so a decoder gives each value as written (a
    Decimal's unscaled bytes, a Timestamp's milliseconds), as JsonConverter writes them."""
    if isinstance(avro, list):
        return [without_logical_types(branch) for branch in avro]
    if not isinstance(avro, dict):
        return avro
    # fastavro's marks of a parsed schema go too: the copy is parsed again.
    return {
        key: without_logical_types(value)
        for key, value in avro.items()
        if key != "logicalType" and not key.startswith("__fastavro")
    }


def _by_schema(schema: dict[str, Any], value: Any, leaf: Callable[[dict[str, Any], Any], Any]) -> Any:
    """`value` walked by its Connect schema, `leaf` taking each value that is not NULL, a
    struct, an array or a map."""
    if value is None:
        return None
    kind = schema["type"]
    if kind == "struct":
        return {field["field"]: _by_schema(field, value.get(field["field"]), leaf) for field in schema["fields"]}
    if kind == "array":
        return [_by_schema(schema["items"], item, leaf) for item in value]
    if kind == "map":
        return {key: _by_schema(schema["values"], item, leaf) for key, item in value.items()}
    return leaf(schema, value)


def _json_leaf(schema: dict[str, Any], datum: Any) -> Any:
    if isinstance(datum, bytes):
        return base64.b64encode(datum).decode("ascii")
    return _shortest_float32(datum) if schema["type"] == "float32" else datum


def json_value(schema: dict[str, Any], datum: Any) -> Any:
    """A decoded Avro datum as JsonConverter writes its value by its Connect schema: bytes as
    base64, a float32 as the shortest decimal that is that float (as Java writes it)."""
    return _by_schema(schema, datum, _json_leaf)


def _shortest_float32(value: float) -> float:
    single = struct.pack("<f", value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        try:
            if struct.pack("<f", candidate) == single:
                return candidate
        except OverflowError:  # rounded past the largest float32
            continue
    return value


def connect_json(schema: dict[str, Any], datum: Any) -> str:
    """A record as JsonConverter writes it with schemas: its Connect schema and its payload."""
    payload = json_value(schema, datum)
    return json.dumps({"schema": schema, "payload": payload}, ensure_ascii=False, separators=(",", ":"))


def connect_reader(writer_schema: Any) -> Callable[[IO[bytes]], str]:
    """Reads a record written with `writer_schema` from a stream, as Kafka Connect's JSON: each
    value as written, without logical types (a Decimal's unscaled bytes, a Timestamp's
    milliseconds), as JsonConverter writes them."""
    connect = connect_schema(writer_schema)
    raw = fastavro.parse_schema(without_logical_types(writer_schema))

    def read(stream: IO[bytes]) -> str:
        return connect_json(connect, fastavro.schemaless_reader(stream, raw, None, handle_unicode_errors="replace"))

    return read


def avro_schema(connect: dict[str, Any], defined: set[str] | None = None) -> Any:
    """The Avro schema AvroData writes for a Connect schema (JsonConverter's JSON form)."""
    defined = set() if defined is None else defined
    kind, name = connect["type"], connect.get("name")
    avro: Any
    if kind == "struct":
        full_name = name or _DEFAULT_RECORD
        if full_name in defined:
            avro = full_name
        else:
            defined.add(full_name)
            namespace, _, simple = full_name.rpartition(".")
            avro = {"type": "record", "name": simple, **({"namespace": namespace} if namespace else {})}
            avro["fields"] = [_avro_field(field, defined) for field in connect["fields"]]
    elif kind == "array":
        avro = {"type": "array", "items": avro_schema(connect["items"], defined)}
    elif kind == "map":
        avro = {"type": "map", "values": avro_schema(connect["values"], defined)}
    else:
        avro = {"type": _AVRO_TYPES.get(kind, kind)}
        if kind in ("int8", "int16"):
            avro["connect.type"] = kind
        if name == _DECIMAL:
            parameters = connect.get("parameters", {})
            avro |= {
                "logicalType": "decimal",
                "scale": int(parameters.get("scale", 0)),
                "precision": int(parameters.get("connect.decimal.precision", 64)),
            }
    if isinstance(avro, dict):
        if kind == "struct" and "doc" in connect:
            avro["doc"] = connect["doc"]
        for prop, key in _PROPS:
            if key in connect:
                avro[prop] = connect[key]
        if "default" in connect:
            avro["connect.default"] = connect["default"]
        if set(avro) == {"type"}:
            avro = avro["type"]
    return ["null", avro] if connect.get("optional") else avro


def _avro_field(connect: dict[str, Any], defined: set[str]) -> dict[str, Any]:
    field = {"name": connect["field"], "type": avro_schema(connect, defined)}
    return field | ({"default": None} if connect.get("optional") else {})


def avro_datum(connect: dict[str, Any], value: Any) -> Any:
    """A JsonConverter payload as the datum AvroData writes for it (base64 to bytes)."""
    return _by_schema(
        connect, value, lambda schema, leaf: base64.b64decode(leaf) if schema["type"] == "bytes" else leaf
    )
