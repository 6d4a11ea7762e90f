"""cdc_lakehouse.incremental: the incremental rules for Python models, without dbt."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.incremental import files_not_loaded, load_time, loaded_after


def _rows(spark: SparkSession, *loaded_at: str) -> DataFrame:
    return spark.createDataFrame(
        [(index, datetime.fromisoformat(at)) for index, at in enumerate(loaded_at)], "id int, loaded_at timestamp"
    )


def test_loaded_after_keeps_only_rows_newer_than_the_newest_loaded(spark: SparkSession) -> None:
    upstream = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00.000001", "2024-01-03 00:00:00")
    loaded = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00")
    assert sorted(row.id for row in loaded_after(upstream, loaded).collect()) == [1, 2]


def test_loaded_after_takes_everything_on_a_full_refresh_or_an_empty_model(spark: SparkSession) -> None:
    upstream = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00")
    assert loaded_after(upstream, None).count() == 2
    assert loaded_after(upstream, upstream.limit(0)).count() == 2


def _files_scanned(frame: DataFrame) -> int:
    """How many files the (executed) frame's file scan read, from Spark's scan metrics."""
    plans = [frame._jdf.queryExecution().executedPlan()]
    while plans:
        plan = plans.pop()
        if plan.nodeName().startswith("Scan "):
            return plan.metrics().apply("numFiles").value()
        children = plan.children().iterator()
        while children.hasNext():
            plans.append(children.next())
    raise AssertionError("no file scan in the plan")


def test_files_not_loaded_skips_loaded_files_without_reading_them(spark: SparkSession, tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    for name in ("loaded-1.txt", "new.txt", "loaded-2.txt"):
        (landing / name).write_text(name + "\n")

    def lines() -> DataFrame:
        return spark.read.text(str(landing)).select("value", F.col("_metadata.file_path").alias("file_path"))

    loaded = lines().where(F.col("value").startswith("loaded")).select("file_path")
    new = files_not_loaded(lines(), F.col("file_path"), loaded)
    assert [row.value for row in new.collect()] == ["new.txt"]
    assert _files_scanned(new) == 1  # pruned before reading, not filtered after
    everything = files_not_loaded(lines(), F.col("file_path"), None)
    assert everything.count() == 3


def test_load_time_is_one_time_per_query(spark: SparkSession) -> None:
    stamped = spark.range(1000).repartition(4).select(load_time().alias("loaded_at"))
    assert stamped.select(F.countDistinct("loaded_at")).first()[0] == 1
