"""A schema registry for tests: the part of Confluent's REST API that Avro producers and the
project use (register a subject's schema, read a schema by id), in memory, on 127.0.0.1.

Karapace is not published on PyPI and Apicurio's registry is a Quarkus application that
Maven's jars do not run as they are, so the tests serve the API themselves; a deployment points
var `kafka_schema_registry_url` at its own registry (docs/kafka.md)."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_SUBJECT_VERSIONS = re.compile(r"^/subjects/([^/]+)/versions$")
_SCHEMA_BY_ID = re.compile(r"^/schemas/ids/(\d+)$")


class SchemaRegistry:
    """Started with `start()` on a free port (`url`), `stop()` ends it (or `with`). A schema has one id
    whatever the subjects that register it, as in Confluent's registry."""

    def __init__(self) -> None:
        self.schemas: list[str] = []
        self.subjects: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def register(self, subject: str, schema: str) -> int:
        canonical = json.dumps(json.loads(schema), sort_keys=True)
        with self._lock:
            if canonical not in self.schemas:
                self.schemas.append(canonical)
            schema_id = self.schemas.index(canonical) + 1
            versions = self.subjects.setdefault(subject, [])
            if schema_id not in versions:
                versions.append(schema_id)
            return schema_id

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                found = _SCHEMA_BY_ID.match(self.path)
                schema_id = int(found.group(1)) if found else 0
                if 0 < schema_id <= len(registry.schemas):
                    self._answer(200, {"schema": registry.schemas[schema_id - 1]})
                else:
                    self._answer(404, {"error_code": 40403, "message": "Schema not found"})

            def do_POST(self) -> None:  # noqa: N802
                found = _SUBJECT_VERSIONS.match(self.path)
                if not found:
                    self._answer(404, {"error_code": 404, "message": "Not found"})
                    return
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                self._answer(200, {"id": registry.register(found.group(1), request["schema"])})

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        return Handler

    def start(self) -> None:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> SchemaRegistry:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
