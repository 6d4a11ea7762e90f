"""Code lookups from the seeds, applied as literal maps: the seeds are tiny, so a map
expression beats a join (no shuffle, no regrouping of the exploded images)."""

from collections.abc import Iterable
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F


def literal_map(pairs: Iterable[tuple[Any, Any]]) -> Column:
    """A Spark map literal from (key, value) pairs."""
    return F.create_map(*[F.lit(item) for pair in pairs for item in pair])


def seed_pairs(seed: DataFrame, key: str, value: str) -> list[tuple[Any, Any]]:
    """The (key, value) rows of a lookup seed, in key order."""
    return [(row[key], row[value]) for row in seed.select(key, value).orderBy(key).collect()]


def label_row_changes(row_changes: DataFrame, jdbc_types: DataFrame, canal_event_types: DataFrame) -> DataFrame:
    """Adds `column_jdbc_type_names` (jdbc type number -> name per column) and `operation_code`
    (the operation as canal's EventType number, which every format's operation has)."""
    jdbc_type_names = literal_map(seed_pairs(jdbc_types, "jdbc_type_number", "jdbc_type_name"))
    event_type_numbers = literal_map(seed_pairs(canal_event_types, "event_type", "event_type_number"))
    return row_changes.withColumns(
        {
            "column_jdbc_type_names": F.transform_values(
                "column_jdbc_types", lambda _, number: F.try_element_at(jdbc_type_names, number)
            ),
            "operation_code": F.try_element_at(event_type_numbers, F.col("operation")),
        }
    )
