"""One encoder per wire format, a module of this package named after the format (its name in
the project's registry): `encode(statement) -> list[str]` (the landed lines the statement
becomes, in order) and `RULES` (its messages' `mutation_rules.FormatRules`, for the
hostile-input test).

A format that lands binary records (the Avro formats) gives its records' text form as lines,
with which the writer can land the same records as binary container files: Avro's JSON encoding
of `AVRO_SCHEMA` (its record schema as JSON: oms_avro, dts_avro), or Kafka Connect's JSON, each
record with its schema (`AVRO_FROM_CONNECT`: debezium_avro). `FORMATS` holds every module of the
package, so a new format's module is all the generator needs.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any, get_args

from cdc_lakehouse.avro.connect import avro_datum, avro_schema
from cdc_tools.avro_json import JsonDatums
from cdc_tools.generator.model import DdlKind, Statement
from cdc_tools.generator.mutation_rules import FormatRules

ALL_DDL_KINDS = frozenset(get_args(DdlKind))
# A line as the Avro record it stands for: (its schema, its datum).
AvroRecord = Callable[[str], tuple[Any, Any]]


def _json_encoded(schema: dict[str, Any]) -> AvroRecord:
    datums = JsonDatums(schema)
    return lambda line: (schema, datums(json.loads(line)))


def _connect(line: str) -> tuple[Any, Any]:
    record = json.loads(line)
    return avro_schema(record["schema"]), avro_datum(record["schema"], record["payload"])


def _avro_record(module: ModuleType) -> AvroRecord | None:
    if getattr(module, "AVRO_FROM_CONNECT", False):
        return _connect
    schema = getattr(module, "AVRO_SCHEMA", None)
    return None if schema is None else _json_encoded(schema)


# The fields every encoder's module spells its own way (the rest are optional constants).
_MODULE_GIVES = frozenset({"name", "encode", "rules", "avro_record"})


@dataclass(frozen=True)
class Encoder:
    """`event_time_resolution_ms` and `carries_emit_time` (module constants
    EVENT_TIME_RESOLUTION_MS, CARRIES_EMIT_TIME; default 1 and True) say what the format's
    times can hold, and `carries_old_images` (CARRIES_OLD_IMAGES, default True) whether it
    sends an UPDATE's old row, so its expected facts are the logical ones as it can carry them;
    `ddl_kinds` (DDL_KINDS, default all; none where it carries no DDL) the kinds of DDL it sends,
    and `ddl_carries_sql` and `ddl_carries_event_time` (DDL_CARRIES_SQL, DDL_CARRIES_EVENT_TIME;
    default True) whether its DDL messages hold the statement and its execution time: AWS DMS's
    control records hold neither, only the time DMS read the DDL, their emit time, which its
    encoder gives as the execution time."""

    name: str
    encode: Callable[[Statement], list[str]]
    rules: FormatRules
    avro_record: AvroRecord | None = None
    event_time_resolution_ms: int = 1
    carries_emit_time: bool = True
    carries_old_images: bool = True
    ddl_kinds: frozenset[str] = ALL_DDL_KINDS
    ddl_carries_sql: bool = True
    ddl_carries_event_time: bool = True

    @classmethod
    def of(cls, module: ModuleType) -> Encoder:
        """The module's encoder: each optional field from the module's constant of its name in
        upper case where it has one, else the field's default."""
        options = {
            field.name: getattr(module, field.name.upper())
            for field in fields(cls)
            if field.name not in _MODULE_GIVES and hasattr(module, field.name.upper())
        }
        name = module.__name__.rpartition(".")[2]
        return cls(name, module.encode, module.RULES, _avro_record(module), **options)

    def sent_schema_changes(self, schema_changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The expected schema changes this format sends."""
        return [change for change in schema_changes if change["ddl_kind"] in self.ddl_kinds]

    @property
    def carries_ddl(self) -> bool:
        return bool(self.ddl_kinds)

    @property
    def keeps_facts(self) -> bool:
        return self.event_time_resolution_ms == 1 and self.carries_emit_time and self.carries_old_images

    def expected(self, fact: dict[str, Any]) -> dict[str, Any]:
        """An expected row or schema change as this format can carry it: its times, a schema
        change's statement, and an UPDATE's before image, unknown (NULL) where the format sends
        none, and so its changed columns."""
        if "sql" in fact:
            fact = {
                **fact,
                "sql": fact["sql"] if self.ddl_carries_sql else None,
                **({} if self.ddl_carries_event_time else {"event_at_ms": None, "emitted_at_ms": fact["event_at_ms"]}),
            }
        if self.keeps_facts:
            return fact
        event_ms = fact["event_at_ms"]
        carried = {
            **fact,
            "event_at_ms": None if event_ms is None else event_ms - event_ms % self.event_time_resolution_ms,
            "emitted_at_ms": fact["emitted_at_ms"] if self.carries_emit_time else None,
        }
        if not self.carries_old_images and fact.get("operation") == "UPDATE":
            carried["before_image"] = None
            carried["changed_columns"] = None
        return carried


FORMATS: dict[str, Encoder] = {
    module.name: Encoder.of(importlib.import_module(f"{__name__}.{module.name}"))
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name)
    if not module.name.startswith("_")
}
