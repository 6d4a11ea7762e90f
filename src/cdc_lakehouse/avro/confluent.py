"""Confluent's wire format for a Kafka key or value: a zero byte, the writer schema's id in a
schema registry (4 bytes, big-endian), then the Avro body. Schemas are read from any registry
that speaks Confluent's REST API (Confluent Schema Registry, Karapace, Apicurio's `ccompat`),
once per id: a run fetches the ids its records name, on the driver, before decoding them."""

from __future__ import annotations

import base64
import json
import struct
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from typing import Any

MAGIC_BYTE = 0
_HEADER = struct.Struct(">bI")


def schema_id(message: bytes | None) -> int | None:
    """The schema id a framed message names; None where it is not framed."""
    if message is None or len(message) < _HEADER.size or message[0] != MAGIC_BYTE:
        return None
    return int(_HEADER.unpack_from(message)[1])


def body(message: bytes) -> bytes:
    return message[_HEADER.size :]


def framed(schema_id: int, avro_body: bytes) -> bytes:
    return _HEADER.pack(MAGIC_BYTE, schema_id) + avro_body


class RegistryClient:
    """A schema registry's REST API at `url` (credentials, if any, as the URL's user info):
    what a reader needs, and a producer's registration."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.url = urllib.parse.urlunsplit(
            parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))
        )
        self.headers = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
        if parts.username:
            user_info = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self.headers["Authorization"] = "Basic " + base64.b64encode(user_info.encode()).decode()

    def _call(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, headers=self.headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            answer: dict[str, Any] = json.load(response)
            return answer

    def schema(self, schema_id: int) -> dict[str, Any]:
        """The Avro schema registered under `schema_id`."""
        schema: dict[str, Any] = json.loads(self._call(f"/schemas/ids/{schema_id}")["schema"])
        return schema

    def schemas(self, schema_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """The schemas of the ids the registry knows; an unknown id is left out (its records
        are then unreadable, and rejected with the others that cannot be read)."""
        known = {}
        for schema_id in schema_ids:
            try:
                known[schema_id] = self.schema(schema_id)
            except urllib.error.HTTPError as error:
                if error.code != 404:
                    raise
        return known

    def register(self, subject: str, schema: Any) -> int:
        """Registers `schema` under `subject` (or finds it there); its id."""
        return int(self._call(f"/subjects/{subject}/versions", {"schema": json.dumps(schema)})["id"])
