"""Kafka's records landed in Delta tables, as a Kafka Connect sink lands files (docs/kafka.md).

Each format's topics (a subscribe pattern) are read by Spark's Kafka source as a stream that
runs until it has everything the topics hold now (`availableNow`), into the format's records
table: its checkpoint holds the offsets read so far, so a run reads only what is new, a topic or
partition that appears later is read from its start, and a run that fails is read again by the
next one without a record landed twice. Every record a run lands carries one landing time: what
the run read of a topic partition is one landed "file" to the models downstream. An Avro
format's records are decoded as they land (cdc_lakehouse.avro.values): its records table holds
each value's text and its key's beside the bytes."""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.values import with_texts

# Spark's Kafka source gives these, in this order; the records tables hold them, landed_at and
# the texts of an Avro format's values and keys (NULL for a text format's).
RECORD_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")
TEXT_COLUMNS = ("value_text", "key_text")


def plan(landing_schema: str, formats: dict[str, dict[str, Any]], topics: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per format of the registry (var cdc_formats), the subscribe pattern of its topics
    (`topics`, else the topic named as the format: Spark's pattern matches anywhere in a name,
    so it is anchored), its records table in the landing schema (the table its `landed_lines`
    source reads: macros/landing/kafka_landing.sql), and whether its values are Avro (a format
    that lands `containers`)."""
    return {
        format_: {
            "topics": topics.get(format_, f"^{format_}$"),
            "records": f"{landing_schema}.{format_}__records",
            "avro": bool(entry.get("containers")),
        }
        for format_, entry in formats.items()
    }


def location_of(spark: SparkSession, table: str) -> str:
    """A Delta table's folder."""
    return spark.sql(f"describe detail {table}").first()["location"].rstrip("/")


def land(
    spark: SparkSession,
    formats: dict[str, dict[str, Any]],
    options: dict[str, str],
    checkpoint_root: str | None = None,
    registry_url: str = "",
) -> DataFrame:
    """Lands, for each of `formats` (as `plan` gives them), the records of its topics not landed
    yet, with Spark's Kafka source `options` (the brokers and any other), an Avro format's
    decoded with the schema registry at `registry_url` where they name their schemas; gives what
    this run landed, a row per topic partition. Each stream keeps its offsets below
    `checkpoint_root`, else beside its table's folder."""
    landed_at = F.timestamp_micros(F.lit(spark.sql("select unix_micros(current_timestamp())").first()[0]))
    # The streams run side by side: each spends most of its time waiting on the broker and on
    # its checkpoint's files, and a failed one stops the others.
    queries: list[StreamingQuery] = []
    try:
        for format_, entry in formats.items():
            queries.append(_start(spark, format_, entry, options, landed_at, checkpoint_root, registry_url))
        for query in queries:
            query.awaitTermination()
    finally:
        for query in queries:
            query.stop()
    reads = [
        spark.table(entry["records"])
        .where(F.col("landed_at") == landed_at)
        .groupBy("topic", "partition")
        .agg(
            F.min("offset").alias("first_offset"),
            F.max("offset").alias("last_offset"),
            F.count("*").alias("records"),
        )
        .select(
            F.lit(format_).alias("source_format"),
            "topic",
            "partition",
            "first_offset",
            "last_offset",
            "records",
            landed_at.alias("landed_at"),
        )
        for format_, entry in formats.items()
    ]
    return reduce(DataFrame.unionByName, reads)


def _start(
    spark: SparkSession,
    format_: str,
    entry: dict[str, Any],
    options: dict[str, str],
    landed_at: Column,
    checkpoint_root: str | None,
    registry_url: str,
) -> StreamingQuery:
    """Starts the stream that lands what is new in the format's topics into its records table."""
    stream = (
        spark.readStream.format("kafka")
        .options(**options)
        .option("subscribePattern", entry["topics"])
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
        .select(*RECORD_COLUMNS, landed_at.alias("landed_at"))
    )
    if not entry["avro"]:
        stream = stream.select("*", *(F.lit(None).cast("string").alias(text) for text in TEXT_COLUMNS))
    # By its folder: Delta 4.0 refuses a stream into its catalog table (DELTA_INVALID_V1_TABLE_CALL).
    location = location_of(spark, entry["records"])
    checkpoint = f"{checkpoint_root.rstrip('/')}/{entry['records']}" if checkpoint_root else f"{location}_checkpoint"
    writer = stream.writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
    if entry["avro"]:
        writer = writer.foreachBatch(_decoding_appender(location, checkpoint, format_, registry_url))
    else:
        writer = writer.format("delta").option("path", location)
    return writer.start()


def _decoding_appender(
    location: str, checkpoint: str, format_: str, registry_url: str
) -> Callable[[DataFrame, int], None]:
    """A stream's batch writer that appends the batch with its Avro records' texts; Delta's
    idempotent writes (the stream's id and the batch's) land a batch run again after a failure
    once."""

    def append(batch: DataFrame, batch_id: int) -> None:
        (
            with_texts(batch, record_schema(format_), registry_url)
            .write.format("delta")
            .mode("append")
            .option("txnAppId", checkpoint)
            .option("txnVersion", batch_id)
            .save(location)
        )

    return append
