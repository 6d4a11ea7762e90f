"""The facts the generator expects and the facts a build gave, as comparable tuples: a row change
or a schema change spelled the same way from either side (images as sorted items, times as UTC
datetimes from the expected epoch milliseconds, NULL where a format carries no such time); and
a generated table's final rows against its replica's."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from cdc_tools.generator.model import Table, Value
from cdc_tools.generator.writer import EXPECTED_FOLDER
from support.dbt_harness import EPOCH


def _freeze(image: dict | None) -> tuple | None:
    return None if image is None else tuple(sorted(image.items()))


def _columns(columns: list[str] | None) -> tuple | None:
    return None if columns is None else tuple(sorted(columns))


def _at(epoch_ms: int | None) -> datetime | None:
    return None if epoch_ms is None else EPOCH + timedelta(milliseconds=epoch_ms)


def expected_row_change(r: dict[str, Any]) -> tuple:
    """A row change of the generator's expected facts."""
    return (
        r["operation"],
        r["database"],
        r["table"],
        r["primary_key"],
        _freeze(r["before_image"]),
        _freeze(r["after_image"]),
        _columns(r["changed_columns"]),
        _at(r["event_at_ms"]),
        _at(r["emitted_at_ms"]),
    )


def fact_row_change(r: dict[str, Any]) -> tuple:
    """A row of fct_row_changes."""
    return (
        r["operation"],
        r["database_name"],
        r["table_name"],
        r["primary_key"],
        _freeze(r["before_image"]),
        _freeze(r["after_image"]),
        _columns(r["changed_columns"]),
        r["event_at"],
        r["emitted_at"],
    )


def expected_schema_change(r: dict[str, Any]) -> tuple:
    """A schema change of the generator's expected facts."""
    return (r["database"], r["table"], r["ddl_kind"], r["sql"], _at(r["event_at_ms"]), _at(r["emitted_at_ms"]))


def fact_schema_change(r: dict[str, Any]) -> tuple:
    """A row of fct_schema_changes."""
    return (r["database_name"], r["table_name"], r["ddl_kind"], r["sql_text"], r["event_at"], r["emitted_at"])


def _expected_facts(landing: Path, format_name: str, kind: str) -> list[dict[str, Any]]:
    """The generator's expected `kind` (row_changes, schema_changes) of a format it landed."""
    path = landing / EXPECTED_FOLDER / format_name / f"{kind}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def compared_facts(
    generated: Path, marts: dict[str, list[dict[str, Any]]], format_name: str, kind: str
) -> tuple[list[tuple], list[tuple]]:
    """A format's `kind` facts (row_changes, schema_changes) as the generator expects them (it
    wrote them under `generated`) and as a build's marts hold them: (expected, actual), lists of
    comparable tuples."""
    expected_fact, fact = (
        (expected_row_change, fact_row_change)
        if kind == "row_changes"
        else (expected_schema_change, fact_schema_change)
    )
    return (
        [expected_fact(r) for r in _expected_facts(generated, format_name, kind)],
        [fact(r) for r in marts[f"fct_{kind}"] if r["source_format"] == format_name],
    )


def multiset_difference(expected: list[tuple], actual: list[tuple]) -> list[str]:
    """What one side has more of than the other, a few lines of each side."""
    want, got = Counter(expected), Counter(actual)
    missing, unexpected = want - got, got - want
    return [f"missing: {row}" for row in list(missing.elements())[:5]] + [
        f"unexpected: {row}" for row in list(unexpected.elements())[:5]
    ]


def _replica_value(value: Value) -> Any:
    """A generated value as the harness reads a replica's: decimals as their text at the
    column's scale, timestamps in UTC, dates as ISO text."""
    if isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return value.isoformat()
    return value


def final_table_difference(table: Table, rows: list[dict[str, Value]], replica_rows: list[dict[str, Any]]) -> list[str]:
    """`multiset_difference` of a generated table's final rows (`final_tables`) and its
    replica's, over the table's current columns."""
    expected = [tuple(_replica_value(row[column.name]) for column in table.columns) for row in rows]
    actual = [tuple(row[column.name] for column in table.columns) for row in replica_rows]
    return multiset_difference(expected, actual)
