"""Step 2, the floor: Spark reads every format's landed lines and parses them with the staging
models' explicit schemas, nothing else; an aggregate forces the parse.

A line that is a JSON array (canal batches) is parsed as an array of the schema. Spark's
pruning of unread JSON fields is turned off, so every field of the schema is parsed.

    python -m cdc_tools.bench.floor LANDING_ROOT SCHEMAS_JSON [--driver-memory 6g]

SCHEMAS_JSON holds {format: [schema DDL, ...]} (see schemas.py); prints BENCH_RESULT={...}.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from cdc_tools.bench.spark import local_session, print_result


def parsed_messages(line: Column, schema: str) -> Column:
    """Messages the line holds when parsed with `schema`: an array's size, 1 for an object
    that parses, 0 for a line that does not."""
    batch = F.from_json(line, f"array<{schema}>")
    message = F.from_json(line, schema)
    return F.when(
        F.ltrim(line).startswith("["), F.coalesce(F.when(batch.isNotNull(), F.size(batch)), F.lit(0))
    ).otherwise(F.when(message.isNotNull(), 1).otherwise(0))


def floor_counts(lines: DataFrame, schemas: list[str]) -> dict[str, int]:
    """Lines, and messages parsed with each schema (`messages_<i>`), in one aggregate."""
    row = lines.agg(
        F.count(F.lit(1)).alias("lines"),
        *[F.sum(parsed_messages(F.col("value"), s)).alias(f"messages_{i}") for i, s in enumerate(schemas)],
    ).first()
    assert row is not None
    return {key: int(value or 0) for key, value in row.asDict().items()}


def run(spark: SparkSession, landing_root: Path, schemas: dict[str, list[str]]) -> dict[str, Any]:
    spark.conf.set("spark.sql.optimizer.enableJsonExpressionOptimization", "false")
    formats = {}
    for name, format_schemas in schemas.items():
        folder = landing_root / name
        if not folder.is_dir():
            continue
        started = time.perf_counter()
        counts = floor_counts(spark.read.text(str(folder)), format_schemas)
        formats[name] = {
            "lines": counts["lines"],
            "messages": counts.get("messages_0", 0),
            "schemas": len(format_schemas),
            "seconds": round(time.perf_counter() - started, 3),
        }
    return {"formats": formats}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.bench.floor", description=__doc__)
    parser.add_argument("landing_root", type=Path)
    parser.add_argument("schemas", type=Path, help="JSON file: {format: [schema DDL, ...]}")
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args(argv)
    schemas = json.loads(args.schemas.read_text())
    spark, start_seconds = local_session("cdc-bench-floor", args.driver_memory)
    started = time.perf_counter()
    result = run(spark, args.landing_root, schemas)
    result.update(
        spark_start_seconds=round(start_seconds, 3),
        work_seconds=round(time.perf_counter() - started, 3),
    )
    spark.stop()
    print_result(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
