"""Step 8, Avro containers: the landed records (the history and its increment) of the Avro
formats with one record schema (DTS, OMS) as binary object container files, read to one text per
record by one decoder, in a process of its own:

    fastavro          as the project reads them (base_<format>__container_records): fastavro
                      in Arrow batches, each record given in Avro's JSON encoding
    fastavro_records  the same reads without the JSON encoding: what the decoding alone costs
    spark_avro        Spark's `avro` data source (spark-avro) with the format's schema, each
                      record given as `to_json` of its row; union branches by position

An aggregate of the texts' lengths forces every record. Debezium's containers are left out:
each file carries its own Kafka Connect schema, which one read of a folder cannot follow.

    python -m cdc_tools.bench.avro_containers DECODER CONTAINERS_ROOT --jars 'jvm/jars/spark-4.0/*'

Prints BENCH_RESULT={"formats": {format: {"records": ..., "seconds": ...}}, ...}.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.container import landed_container_records
from cdc_tools.bench.spark import local_session, print_result
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.writer import ContainerWriter

DECODERS = ("fastavro", "fastavro_records", "spark_avro")


def container_formats(formats: list[str]) -> list[str]:
    """The formats among `formats` whose records have one schema, written as containers."""
    return [name for name in formats if FORMATS[name].avro_record is not None and record_schema(name) is not None]


def write_containers(landing_root: Path, containers_root: Path, formats: list[str], max_file_bytes: int) -> int:
    """Writes the JSON-encoded lines of each format's folder under `landing_root` as the records
    they stand for, in container files under `containers_root/<format>/` rolled where the lines'
    files would be. Returns the records."""
    records = 0
    for name in container_formats(formats):
        writer = ContainerWriter(containers_root / name, max_file_bytes, FORMATS[name].avro_record)
        for path in sorted((landing_root / name).iterdir()):
            # Lines end at "\n" only: a JSON string may hold U+2028 and the like.
            for line in filter(None, path.read_text(encoding="utf-8").split("\n")):
                writer.write(line)
                records += 1
        writer.close()
    return records


def _record_counts(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: each file's records, decoded and counted."""
    for batch in batches:
        counts = [
            sum(1 for _ in fastavro.reader(io.BytesIO(content))) for content in batch.column("content").to_pylist()
        ]
        yield pa.RecordBatch.from_pydict({"records": counts, "text_chars": [0] * len(counts)})


def decoded(spark: SparkSession, decoder: str, folder: Path, name: str) -> DataFrame:
    """(records, text_chars) rows of the decoder's reads of the folder's containers."""
    if decoder == "spark_avro":
        rows = spark.read.format("avro").option("avroSchema", json.dumps(record_schema(name))).load(str(folder))
        return rows.select(F.lit(1).alias("records"), F.length(F.to_json(F.struct("*"))).alias("text_chars"))
    files = spark.read.format("binaryFile").load(str(folder))
    if decoder == "fastavro_records":
        return files.select("content").mapInArrow(_record_counts, "records long, text_chars long")
    landed = files.selectExpr("path as file_path", "content", "modificationTime as landed_at")
    records = landed_container_records(landed, record_schema(name))
    return records.select(F.lit(1).alias("records"), F.length("payload").alias("text_chars"))


def run(spark: SparkSession, decoder: str, containers_root: Path) -> dict[str, Any]:
    formats = {}
    for folder in sorted(path for path in containers_root.iterdir() if path.is_dir()):
        started = time.perf_counter()
        row = decoded(spark, decoder, folder, folder.name).agg(F.sum("records"), F.sum("text_chars")).first()
        assert row is not None
        formats[folder.name] = {
            "records": int(row[0] or 0),
            "text_chars": int(row[1] or 0),
            "seconds": round(time.perf_counter() - started, 3),
        }
    return {"decoder": decoder, "formats": formats}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.bench.avro_containers", description=__doc__)
    parser.add_argument("decoder", choices=DECODERS)
    parser.add_argument("containers_root", type=Path)
    parser.add_argument("--jars", required=True, help="the class path of Delta and spark-avro (jvm/jars/<line>/*)")
    parser.add_argument("--driver-memory", default="5g")
    args = parser.parse_args(argv)
    spark, start_seconds = local_session(
        "cdc-bench-avro", args.driver_memory, args.jars, args.containers_root.parent / "avro-warehouse"
    )
    started = time.perf_counter()
    result = run(spark, args.decoder, args.containers_root)
    result.update(spark_start_seconds=round(start_seconds, 3), work_seconds=round(time.perf_counter() - started, 3))
    spark.stop()
    print_result(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
