"""Step 4, the equivalent: what the full build does, written by hand as a competent engineer
would in plain PySpark with Spark's built-in functions, over the same landing and every format.

For each format's lines: parse with an explicit schema; reject what does not parse (kept with
its text); spell the row changes in one shape (database, table, operation, event time, source
position, before and after images as column-to-text maps); then, for all formats at once, give
each row its key (the tables' primary keys, which the build is given too: var
`cdc_primary_keys`), drop redelivered copies by the project's identity rules (`keyed_changes`),
and MERGE into Delta tables the row changes, every row's versions (SCD2: valid from, valid to)
and the current rows.

It leaves out what the project adds to that: rejection reasons, per-line accounting and its
reconciliation, exact numbers, values decoded by their types (a Debezium decimal stays its
base64 bytes, a DTS datetime its JSON), DDL, typed replicas, incremental loads and data tests.

    python -m cdc_tools.bench.equivalent LANDING_ROOT WAREHOUSE PRIMARY_KEYS_JSON --jars GLOB
"""

from __future__ import annotations

import argparse
import json
import time
from functools import reduce
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.avro.functions import from_avro
from pyspark.sql.window import Window

from cdc_lakehouse.avro import record_schema
from cdc_tools.bench.spark import local_session, print_result

IMAGE = "map<string, string>"
# What every format's spelling gives, in SQL over its parsed message `m` (`rows` reads `operation`).
SHAPE = ("database", "table_name", "operation", "event_at", "position", "rows")


def overlay(image: str, old: str) -> str:
    """`image` with the values `old` holds in their place (a partial before image)."""
    return f"transform_values({image}, (k, v) -> if(map_contains_key({old}, k), {old}[k], v))"


def one_row(updated_from: str, deleted: str, after: str) -> str:
    """A message's one changed row: its before image (`updated_from` for an UPDATE, `deleted`
    for a DELETE) and after image."""
    return (
        f"array(named_struct('before', case operation when 'UPDATE' then {updated_from} when 'DELETE' then "
        f"{deleted} end, 'after', if(operation = 'DELETE', null, {after})))"
    )


def operation_of(code: str, inserts: str, updates: str, deletes: str) -> str:
    return f"case when {code} in ({inserts}) then 'INSERT' when {code} in ({updates}) then 'UPDATE' when {code} in ({deletes}) then 'DELETE' end"


def union_text(union: str) -> str:
    """An Avro union value in Avro's JSON encoding ({branch: value}) as text: the branch's
    value, or its record's `value` field."""
    branch = f"element_at(map_values({union}), 1)"
    return f"coalesce(get_json_object({branch}, '$.value'), {branch})"


def named_image(names: str, texts: str) -> str:
    return f"map_from_arrays(transform({names}, f -> f.name), {texts})"


FLAT_ROW = "map_filter(m, (k, v) -> not startswith(k, '__'))"
# Kafka Connect's JSON converter writes a value bare, or as {"schema": ..., "payload": <value>}.
CONNECT_VALUE = "if(get_json_object(value, '$.schema') is not null, get_json_object(value, '$.payload'), value)"
RIVER_ROW = "map_from_entries(transform(m.columns, c -> struct(c.n, if(c.null, null, c.v))))"
DTS_IMAGE = named_image("m.fields.array", f"transform(m.{{0}}Images.array, u -> {union_text('u')})")


def oms_spelling() -> tuple[str, tuple[str, ...]]:
    """OMS: images in Avro's JSON encoding, or a shard set's Avro binary (`oms_shard_images`)."""
    value = f"struct<value: {IMAGE}>"
    schema = (
        f"struct<id: bigint, operation: {IMAGE}, position: {IMAGE}, timestamp: {IMAGE}, schemaName: {IMAGE}, "
        f"tableName: {IMAGE}, fields: struct<array: array<struct<name: string>>>, total: int, index: int, "
        f"beforeImages: struct<array: array<{value}>>, afterImages: struct<array: array<{value}>>, "
        "beforeImageBytes: string, afterImageBytes: string>"
    )
    operation = "element_at(map_values(m.operation), 1)"
    images = named_image(
        "m.fields.array", f"transform(coalesce(m.{{0}}Images.array, shard_{{0}}), c -> {union_text('c.value')})"
    )
    return schema, (
        "m.schemaName.string",
        "m.tableName.string",
        f"if({operation} in ('INSERT', 'UPDATE', 'DELETE'), {operation}, null)",
        "timestamp_seconds(cast(m.timestamp.long as bigint))",
        "m.position.string",
        one_row(images.format("before"), images.format("before"), images.format("after")),
    )


# format -> (message schema, spellings of SHAPE over `m`)
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "canal_json": (
        f"struct<database: string, table: string, type: string, isDdl: boolean, es: bigint, data: array<{IMAGE}>, old: array<{IMAGE}>>",
        (
            "m.database",
            "m.table",
            "if(m.isDdl, null, m.type)",
            "timestamp_millis(m.es)",
            "null",
            f"transform(m.data, (d, i) -> named_struct('before', case m.type when 'UPDATE' then "
            f"{overlay('d', 'coalesce(m.old[i], map())')} when 'DELETE' then d end, 'after', if(m.type = 'DELETE', null, d)))",
        ),
    ),
    "cloudcanal_json": (
        f"struct<db: string, table: string, action: string, isDdl: boolean, execTs: bigint, data: array<{IMAGE}>, before: array<{IMAGE}>>",
        (
            "m.db",
            "m.table",
            "if(m.isDdl, null, m.action)",
            "timestamp_millis(m.execTs)",
            "null",
            "transform(m.data, (d, i) -> named_struct('before', case m.action when 'UPDATE' then m.before[i] "
            "when 'DELETE' then d end, 'after', if(m.action = 'DELETE', null, d)))",
        ),
    ),
    "debezium_json": (
        f"struct<op: string, before: {IMAGE}, after: {IMAGE}, source: struct<db: string, table: string, "
        "ts_ms: bigint, file: string, pos: bigint, row: int, lsn: bigint>>",
        (
            "m.source.db",
            "m.source.table",
            operation_of("m.op", "'c', 'r'", "'u'", "'d'"),
            "timestamp_millis(m.source.ts_ms)",
            "coalesce(nullif(concat_ws(':', m.source.file, m.source.pos, m.source.row), ''), cast(m.source.lsn as string))",
            one_row("m.before", "m.before", "m.after"),
        ),
    ),
    "debezium_flat_json": (
        IMAGE,
        (
            "m['__db']",
            "m['__table']",
            operation_of("m['__op']", "'c', 'r'", "'u'", "'d'"),
            "timestamp_millis(cast(m['__source_ts_ms'] as bigint))",
            "concat_ws(':', m['__source_file'], m['__source_pos'], m['__source_row'])",
            one_row("null", FLAT_ROW, FLAT_ROW),
        ),
    ),
    "kafka_river_json": (
        "struct<binlog: string, time: bigint, db: string, table: string, event: string, "
        "columns: array<struct<n: string, v: string, origin_val: string, updated: boolean, null: boolean>>>",
        (
            "m.db",
            "m.table",
            operation_of("m.event", "'i'", "'u'", "'d'"),
            "timestamp_millis(m.time)",
            "m.binlog",
            one_row(
                "map_from_entries(transform(m.columns, c -> struct(c.n, if(c.updated, c.origin_val, if(c.null, null, c.v)))))",
                RIVER_ROW,
                RIVER_ROW,
            ),
        ),
    ),
    "maxwell_json": (
        f"struct<database: string, table: string, type: string, ts: bigint, position: string, xoffset: int, data: {IMAGE}, old: {IMAGE}>",
        (
            "m.database",
            "m.table",
            operation_of("m.type", "'insert', 'bootstrap-insert'", "'update'", "'delete'"),
            "timestamp_seconds(m.ts)",
            "concat_ws(':', m.position, m.xoffset)",
            one_row(
                overlay("m.data", "coalesce(m.old, map())"),
                "m.data",
                "m.data",
            ),
        ),
    ),
    "ogg_json": (
        f"struct<table: string, op_type: string, op_ts: string, pos: string, before: {IMAGE}, after: {IMAGE}>",
        (
            "split_part(m.table, '.', 1)",
            "split_part(m.table, '.', 2)",
            operation_of("m.op_type", "'I'", "'U'", "'D'"),
            "to_timestamp(m.op_ts)",
            "m.pos",
            one_row(
                overlay("m.after", "coalesce(m.before, map())"),
                "m.before",
                "m.after",
            ),
        ),
    ),
    "aws_dms_json": (
        f"struct<data: {IMAGE}, `before-image`: {IMAGE}, metadata: struct<`record-type`: string, operation: string, "
        "`schema-name`: string, `table-name`: string, `commit-timestamp`: string, `stream-position`: string>>",
        (
            "m.metadata.`schema-name`",
            "m.metadata.`table-name`",
            "if(m.metadata.`record-type` = 'data', "
            + operation_of("m.metadata.operation", "'insert', 'load'", "'update'", "'delete'")
            + ", null)",
            "to_timestamp(m.metadata.`commit-timestamp`)",
            "m.metadata.`stream-position`",
            one_row(
                "m.`before-image`",
                "m.data",
                "m.data",
            ),
        ),
    ),
    "dts_avro": (
        f"struct<operation: string, objectName: {IMAGE}, sourceTimestamp: bigint, sourcePosition: string, "
        f"fields: struct<array: array<struct<name: string>>>, beforeImages: struct<array: array<{IMAGE}>>, "
        f"afterImages: struct<array: array<{IMAGE}>>>",
        (
            "split_part(m.objectName.string, '.', 1)",
            "split_part(m.objectName.string, '.', 2)",
            "if(m.operation in ('INSERT', 'UPDATE', 'DELETE'), m.operation, null)",
            "timestamp_seconds(m.sourceTimestamp)",
            "m.sourcePosition",
            one_row(DTS_IMAGE.format("before"), DTS_IMAGE.format("before"), DTS_IMAGE.format("after")),
        ),
    ),
    "oms_avro": oms_spelling(),
}
# Debezium's Avro lands its records as Kafka Connect's JSON: Debezium JSON with its schema.
FORMATS["debezium_avro"] = FORMATS["debezium_json"]


def oms_shard_images(messages: DataFrame) -> DataFrame:
    """A shard set's images on its shard 0, the others dropped: the pieces of `...ImageBytes`
    (bytes as code points U+0000-U+00FF) joined in order, decoded with spark-avro, each value
    back in the JSON images' form ({"value": {branch: text}})."""
    record = record_schema("oms_avro")
    images_schema = next(f for f in record["fields"] if f["name"] == "beforeImages")["type"][1]
    holder = {**images_schema, "items": {**images_schema["items"], "namespace": record["namespace"]}}
    branches = [b if isinstance(b, str) else b["type"] for b in holder["items"]["fields"][1]["type"]]
    kinds = [kind for kind in branches if kind != "null"]  # spark-avro's member0, member1, ...

    def value_text(value: Column) -> Column:
        members = [value[f"member{i}"] for i in range(len(kinds))]
        return F.coalesce(
            *[F.to_json(m) if k == "record" else m.cast("string") for m, k in zip(members, kinds, strict=True)]
        )

    sets = (
        messages.where("m.total > 1")
        .groupBy("file_path", "m.id")
        .agg(F.array_sort(F.collect_list(F.struct("m.index", "m.beforeImageBytes", "m.afterImageBytes"))).alias("p"))
    )

    def joined(side: str) -> Column:
        joined_bytes = F.encode(F.expr(f"array_join(transform(p, s -> s.{side}ImageBytes), '')"), "ISO-8859-1")
        decoded = from_avro(joined_bytes, json.dumps(holder))
        return F.transform(decoded, lambda c: F.struct(F.create_map(F.lit("v"), value_text(c["value"])).alias("value")))

    return sets.select(
        F.col("file_path").alias("set_file"),
        F.col("id").alias("set_id"),
        joined("before").alias("shard_before"),
        joined("after").alias("shard_after"),
    )


def spelled(spark: SparkSession, name: str, folder: Path) -> tuple[DataFrame, DataFrame]:
    """The format's row changes in SHAPE, and its lines that do not parse."""
    schema, spelling = FORMATS[name]
    lines = spark.read.text(str(folder)).select(
        "value", F.col("_metadata.file_path"), F.monotonically_increasing_id().alias("line_id")
    )
    if name in ("debezium_json", "debezium_flat_json", "debezium_avro"):
        lines = lines.withColumn("value", F.expr(CONNECT_VALUE))
    corrupt = f"{schema[:-1]}, _corrupt_record: string>" if schema.startswith("struct") else schema
    message = F.from_json("value", corrupt)
    if name == "canal_json":  # a line may be a batch: a JSON array of messages
        batch = F.from_json("value", f"array<{corrupt}>")
        message = F.explode_outer(F.when(F.ltrim("value").startswith("["), batch).otherwise(F.array(message)))
    parsed = lines.select("*", message.alias("m"))
    # A map-typed message has no corrupt-record field: malformed, it is NULL.
    unparsed = "m is null" + (" or m._corrupt_record is not null" if corrupt != schema else "")
    rejected = parsed.where(unparsed).select(F.lit(name).alias("source_format"), "file_path", "value")
    good = parsed.where(f"not ({unparsed})")
    if name == "oms_avro":
        shards = oms_shard_images(good)
        good = good.where("coalesce(m.total, -1) < 1 or m.index = 0").join(
            shards, (F.col("file_path") == shards.set_file) & (F.col("m.id") == shards.set_id), "left"
        )
    # The operation first: the rows' spelling reads it.
    good = good.withColumn("operation", F.expr(spelling[SHAPE.index("operation")]))
    columns = [
        F.expr(sql).alias(column) if column != "operation" else column
        for column, sql in zip(SHAPE, spelling, strict=True)
    ]
    changes = good.select(F.lit(name).alias("source_format"), "file_path", "line_id", *columns).where(
        "operation is not null and table_name is not null"
    )
    return changes, rejected


def keyed_changes(changes: DataFrame, primary_keys: DataFrame) -> DataFrame:
    """One row per changed row, with its key (its table's primary key columns' values as JSON)
    and its order among the key's changes, copies of a change dropped: the same change of the
    same source position; without a position, the same change in the same run of it in its
    row's history within a file (a change said again after another change of the row is a new
    one: an INSERT, a DELETE and the same INSERT at one time are three)."""
    rows = changes.select("*", F.posexplode("rows").alias("row_index", "row")).drop("rows")
    image = F.coalesce("row.after", "row.before")
    key = F.to_json(F.map_from_arrays("key_columns", F.transform("key_columns", lambda column: image[column])))
    rows = rows.join(F.broadcast(primary_keys), ["database", "table_name"], "left").select(
        "*",
        key.alias("row_key"),
        F.to_json("row.before").alias("before_json"),
        F.to_json("row.after").alias("after_json"),
    )
    row = ["source_format", "file_path", "database", "table_name", "row_key"]
    change = ["operation", "event_at", "position", "row_index", "before_json", "after_json"]
    in_file = Window.partitionBy(*row).orderBy("line_id", "row_index")
    starts_run = F.lag(F.to_json(F.struct(*change))).over(in_file).eqNullSafe(F.to_json(F.struct(*change))) == F.lit(
        False
    )
    runs = rows.withColumn("starts_run", starts_run.cast("int"))
    run = F.sum("starts_run").over(Window.partitionBy(*row, *change).orderBy("line_id", "row_index"))
    unique = runs.withColumn("run", F.when(F.col("position").isNull(), run).otherwise(1)).dropDuplicates(
        ["source_format", "database", "table_name", "row_key", *change, "run"]
    )
    return unique.select(
        "source_format", "database", "table_name", "operation", "event_at", "position",
        F.col("row.before").alias("before_image"), F.col("row.after").alias("after_image"),
        "row_key", F.struct("event_at", "position", "line_id", "row_index").alias("change_order"),
    )  # fmt: skip


def merge(spark: SparkSession, table: str, source: DataFrame, on: str, actions: str) -> None:
    source.createOrReplaceTempView(f"{table}_source")
    spark.sql(f"create table if not exists {table} using delta as select * from {table}_source where false")
    spark.sql(f"merge into {table} t using {table}_source s on {on} {actions}")


def run(spark: SparkSession, landing_root: Path, primary_keys: dict[str, list[str]]) -> dict[str, int]:
    names = [name for name in FORMATS if (landing_root / name).is_dir()]
    changes, rejected = (
        reduce(DataFrame.unionByName, frames)
        for frames in zip(*(spelled(spark, name, landing_root / name) for name in names))
    )
    keys = spark.createDataFrame(
        [(name.split(".")[0], name.split(".", 1)[1], columns) for name, columns in primary_keys.items()],
        "database string, table_name string, key_columns array<string>",
    )
    keyed = keyed_changes(changes, keys).cache()
    same_key = ["source_format", "database", "table_name", "row_key"]
    by_key = Window.partitionBy(*same_key).orderBy("change_order")
    versions = keyed.select(
        *same_key, "change_order", "operation", F.col("after_image").alias("image"),
        F.col("event_at").alias("valid_from"), F.lead("event_at").over(by_key).alias("valid_to"),
        F.lead("event_at").over(by_key).isNull().alias("is_current"),
    )  # fmt: skip
    key_match = " and ".join(f"t.{column} <=> s.{column}" for column in same_key)
    change_match = f"{key_match} and t.change_order <=> s.change_order"
    merge(spark, "row_changes", keyed, change_match, "when not matched then insert *")
    merge(spark, "row_versions", versions, change_match,
          "when matched then update set * when not matched then insert *")  # fmt: skip
    current = versions.where("is_current").drop("valid_to", "is_current")
    merge(spark, "current_rows", current, key_match,
          "when matched and s.operation = 'DELETE' then delete when matched then update set * "
          "when not matched and s.operation != 'DELETE' then insert *")  # fmt: skip
    rejected.write.format("delta").mode("append").saveAsTable("rejected_lines")
    return {
        name: spark.table(name).count() for name in ("row_changes", "row_versions", "current_rows", "rejected_lines")
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.bench.equivalent", description=__doc__)
    parser.add_argument("landing_root", type=Path)
    parser.add_argument("warehouse", type=Path)
    parser.add_argument("primary_keys", type=Path, help='JSON file: {"database.table": [column, ...]}')
    parser.add_argument("--jars", required=True, help="the class path of Delta and spark-avro (jvm/jars/<line>/*)")
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args(argv)
    spark, start_seconds = local_session(
        "cdc-bench-equivalent", args.driver_memory, jars=args.jars, warehouse=args.warehouse
    )
    started = time.perf_counter()
    counts = run(spark, args.landing_root, json.loads(args.primary_keys.read_text()))
    work_seconds = time.perf_counter() - started
    spark.stop()
    print_result({"spark_start_seconds": round(start_seconds, 3), "work_seconds": round(work_seconds, 3), **counts})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
