"""One encoder per wire format: a module with `NAME`, `CARRIES_DDL` and
`encode(statement) -> list[str]` (the landed lines the statement becomes, in order).

A format that lands binary records (the Avro formats: oms_avro, dts_avro) adds a module with
the same three names whose lines are the records' text form (Avro's JSON encoding), and is
registered in `FORMATS` like the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from cdc_lakehouse.generator.formats import (
    canal_json,
    cloudcanal_json,
    debezium_json,
    kafka_river_json,
    oms_avro,
)
from cdc_lakehouse.generator.model import Statement


@dataclass(frozen=True)
class Encoder:
    name: str
    carries_ddl: bool
    encode: Callable[[Statement], list[str]]

    @classmethod
    def of(cls, module: ModuleType) -> Encoder:
        return cls(module.NAME, module.CARRIES_DDL, module.encode)


FORMATS: dict[str, Encoder] = {
    encoder.name: encoder
    for encoder in map(
        Encoder.of, (canal_json, cloudcanal_json, debezium_json, kafka_river_json, oms_avro)
    )
}
