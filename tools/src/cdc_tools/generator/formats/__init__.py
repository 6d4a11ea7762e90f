"""One encoder per wire format: a module with `NAME`, `CARRIES_DDL` and
`encode(statement) -> list[str]` (the landed lines the statement becomes, in order).

A format that lands binary records (the Avro formats: oms_avro, dts_avro) adds a module with
the same three names whose lines are the records' text form (Avro's JSON encoding), plus
`AVRO_SCHEMA` (its record schema as JSON) with which the writer can land the same records as
binary container files; it is registered in `FORMATS` like the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from cdc_tools.generator.formats import (
    canal_json,
    cloudcanal_json,
    debezium_json,
    dts_avro,
    kafka_river_json,
    oms_avro,
)
from cdc_tools.generator.model import Statement


@dataclass(frozen=True)
class Encoder:
    """`event_time_resolution_ms` and `carries_emit_time` (module constants
    EVENT_TIME_RESOLUTION_MS, CARRIES_EMIT_TIME; default 1 and True) say what the format's
    times can hold, so its expected facts are the logical times as it can carry them."""

    name: str
    carries_ddl: bool
    encode: Callable[[Statement], list[str]]
    avro_schema: dict[str, Any] | None = None
    event_time_resolution_ms: int = 1
    carries_emit_time: bool = True

    @classmethod
    def of(cls, module: ModuleType) -> Encoder:
        return cls(
            module.NAME,
            module.CARRIES_DDL,
            module.encode,
            getattr(module, "AVRO_SCHEMA", None),
            getattr(module, "EVENT_TIME_RESOLUTION_MS", 1),
            getattr(module, "CARRIES_EMIT_TIME", True),
        )

    @property
    def keeps_times(self) -> bool:
        return self.event_time_resolution_ms == 1 and self.carries_emit_time

    def expected(self, fact: dict[str, Any]) -> dict[str, Any]:
        """An expected row or schema change as this format can carry its times."""
        if self.keeps_times:
            return fact
        event_ms = fact["event_at_ms"]
        return {
            **fact,
            "event_at_ms": event_ms - event_ms % self.event_time_resolution_ms,
            "emitted_at_ms": fact["emitted_at_ms"] if self.carries_emit_time else None,
        }


FORMATS: dict[str, Encoder] = {
    encoder.name: encoder
    for encoder in map(Encoder.of, (canal_json, cloudcanal_json, debezium_json, kafka_river_json, dts_avro, oms_avro))
}
