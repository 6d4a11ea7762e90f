"""The SparkSession of the benchmark's own Spark jobs (floor, hand-written, equivalent): the settings of
the project's `local` dbt target (2 cores, UTC, 4 shuffle partitions, the serial collector, room for
every class of generated code), without Hive."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

RESULT_PREFIX = "BENCH_RESULT="


def local_session(
    app_name: str, driver_memory: str, jars: str | None = None, warehouse: Path | None = None
) -> tuple[SparkSession, float]:
    """A local[2] session, and the seconds it took to start (the JVM's start-up). With `jars`
    (Delta's and spark-avro's class path), Delta Lake as the profile sets it up, its tables
    in `warehouse`."""
    started = time.perf_counter()
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC")
        .config("spark.sql.codegen.cache.maxEntries", "5000")
    )
    if jars is not None:
        builder = (
            builder.config("spark.driver.extraClassPath", jars)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.databricks.delta.snapshotPartitions", "2")
            .config("spark.sql.warehouse.dir", str(warehouse))
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark, time.perf_counter() - started


def print_result(result: dict[str, Any]) -> None:
    """The job's result as one stdout line the benchmark reads back."""
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def read_result(stdout: str) -> dict[str, Any]:
    """The result a job printed with `print_result`."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    raise ValueError("the job printed no result")
