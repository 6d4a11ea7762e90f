"""The SparkSession of the benchmark's own Spark jobs (floor and hand-written): the settings of
the project's `local` dbt target (2 cores, UTC, 4 shuffle partitions), without Hive."""

from __future__ import annotations

import json
import time
from typing import Any

from pyspark.sql import SparkSession

RESULT_PREFIX = "BENCH_RESULT="


def local_session(app_name: str, driver_memory: str) -> tuple[SparkSession, float]:
    """A local[2] session, and the seconds it took to start (the JVM's start-up)."""
    started = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
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
