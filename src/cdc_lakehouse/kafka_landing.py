"""Kafka's records landed in Delta tables, as a Kafka Connect sink lands files (docs/kafka.md).

Each format's topics (a subscribe pattern) are read by Spark's Kafka source as a stream that
runs until it has everything the topics hold now (`availableNow`), into the format's records
table: its checkpoint holds the offsets read so far, so a run reads only what is new, a topic or
partition that appears later is read from its start, and a run that fails is read again by the
next one without a record landed twice. Every record a run lands carries one landing time: what
the run read of a topic partition is one landed "file" to the models downstream."""

from __future__ import annotations

from functools import reduce

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

# Spark's Kafka source gives these, in this order; the records tables hold them and landed_at.
RECORD_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")


def plan(landing_schema: str, formats: list[str], topics: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per format, the subscribe pattern of its topics (`topics`, else the topic named as the
    format: Spark's pattern matches anywhere in a name, so it is anchored) and its records table
    in the landing schema (the table its `landed_lines` source reads:
    macros/landing/kafka_landing.sql)."""
    return {
        format_: {"topics": topics.get(format_, f"^{format_}$"), "records": f"{landing_schema}.{format_}__records"}
        for format_ in formats
    }


def location_of(spark: SparkSession, table: str) -> str:
    """A Delta table's folder."""
    return spark.sql(f"describe detail {table}").first()["location"].rstrip("/")


def land(
    spark: SparkSession,
    formats: dict[str, dict[str, str]],
    options: dict[str, str],
    checkpoint_root: str | None = None,
) -> DataFrame:
    """Lands, for each of `formats` (as `plan` gives them: {format: {"topics", "records"}}), the
    records of its topics not landed yet, with Spark's Kafka source `options` (the brokers and
    any other); gives what this run landed, a row per topic partition. Each stream keeps its
    offsets below `checkpoint_root`, else beside its table's folder."""
    landed_at = F.timestamp_micros(F.lit(spark.sql("select unix_micros(current_timestamp())").first()[0]))
    reads = []
    for format_, entry in formats.items():
        stream = (
            spark.readStream.format("kafka")
            .options(**options)
            .option("subscribePattern", entry["topics"])
            .option("startingOffsets", "earliest")
            .option("includeHeaders", "true")
            .load()
            .select(*RECORD_COLUMNS, landed_at.alias("landed_at"))
        )
        # By its folder: Delta 4.0 refuses a stream into its catalog table (DELTA_INVALID_V1_TABLE_CALL).
        location = location_of(spark, entry["records"])
        checkpoint = (
            f"{checkpoint_root.rstrip('/')}/{entry['records']}" if checkpoint_root else f"{location}_checkpoint"
        )
        query = (
            stream.writeStream.format("delta")
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start(location)
        )
        query.awaitTermination()
        reads.append(
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
        )
    return reduce(DataFrame.unionByName, reads)
