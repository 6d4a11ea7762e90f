"""Step 3, the hand-written baseline: the canal job a competent engineer would write without
this project. It reads canal FlatMessage lines (one message or a JSON array of them), parses
them with a hand-written schema, keeps the row changes, gives one row per changed row with its
before image rebuilt (`data` overlaid with the partial `old`) and writes Parquet.

It does none of what the project adds: no line numbers, no rejection reasons, no
deduplication, no reconciliation, no key fallback, no exact numbers (images are
map<string,string>), no other formats, no tests.

    python -m cdc_tools.bench.handwritten INPUT_FOLDER OUTPUT_FOLDER [--driver-memory 6g]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from cdc_tools.bench.spark import local_session, print_result

IMAGE = MapType(StringType(), StringType())
FLAT_MESSAGE = StructType(
    [
        StructField("id", LongType()),
        StructField("database", StringType()),
        StructField("table", StringType()),
        StructField("pkNames", ArrayType(StringType())),
        StructField("isDdl", BooleanType()),
        StructField("type", StringType()),
        StructField("es", LongType()),
        StructField("ts", LongType()),
        StructField("sql", StringType()),
        StructField("sqlType", MapType(StringType(), IntegerType())),
        StructField("mysqlType", MapType(StringType(), StringType())),
        StructField("data", ArrayType(IMAGE)),
        StructField("old", ArrayType(IMAGE)),
    ]
)


def canal_row_changes(lines: DataFrame) -> DataFrame:
    """One row per changed row of the canal lines in `lines.value`."""
    value = F.col("value")
    as_array = F.when(value.startswith("["), value).otherwise(F.concat(F.lit("["), value, F.lit("]")))
    messages = lines.select(F.explode(F.from_json(as_array, ArrayType(FLAT_MESSAGE))).alias("m"))
    dml = messages.where(~F.col("m.isDdl") & F.col("m.type").isin("INSERT", "UPDATE", "DELETE"))
    rows = dml.select("m.*", F.posexplode("m.data").alias("row_index", "row"))
    old_row = F.coalesce(F.try_element_at(F.col("old"), F.col("row_index") + 1), F.create_map())
    # `old` holds the changed columns' old values: they replace the new ones.
    before_update = F.transform_values(
        "row", lambda column, value: F.when(F.map_contains_key(old_row, column), old_row[column]).otherwise(value)
    )
    return rows.select(
        F.col("database").alias("database_name"),
        F.col("table").alias("table_name"),
        F.col("type").alias("operation"),
        F.array_distinct("pkNames").alias("primary_key_columns"),
        F.when(F.col("type") == "UPDATE", before_update)
        .when(F.col("type") == "DELETE", F.col("row"))
        .alias("before_image"),
        F.when(F.col("type") != "DELETE", F.col("row")).alias("after_image"),
        F.timestamp_millis("es").alias("event_at"),
        F.timestamp_millis("ts").alias("emitted_at"),
        F.col("id").alias("message_id"),
        "row_index",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.bench.handwritten", description=__doc__)
    parser.add_argument("input", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args(argv)
    spark, start_seconds = local_session("cdc-bench-handwritten", args.driver_memory)
    started = time.perf_counter()
    canal_row_changes(spark.read.text(str(args.input))).write.mode("overwrite").parquet(str(args.output))
    work_seconds = time.perf_counter() - started
    rows = spark.read.parquet(str(args.output)).count()  # after the timed part
    spark.stop()
    print_result(
        {
            "spark_start_seconds": round(start_seconds, 3),
            "work_seconds": round(work_seconds, 3),
            "row_changes": rows,
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
