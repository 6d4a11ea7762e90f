"""cdc_lakehouse.incremental: the incremental rules for Python models, without dbt."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.incremental import files_not_loaded, load_time, loaded_after, newest_load


def _rows(spark: SparkSession, *loaded_at: str) -> DataFrame:
    return spark.createDataFrame(
        [(index, datetime.fromisoformat(at)) for index, at in enumerate(loaded_at)], "id int, loaded_at timestamp"
    )


def test_loaded_after_keeps_only_rows_newer_than_the_newest_loaded(spark: SparkSession) -> None:
    upstream = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00.000001", "2024-01-03 00:00:00")
    loaded = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00")
    assert sorted(row.id for row in loaded_after(upstream, newest_load(loaded)).collect()) == [1, 2]


def test_loaded_after_takes_everything_on_a_full_refresh_or_an_empty_model(spark: SparkSession) -> None:
    upstream = _rows(spark, "2024-01-01 00:00:00", "2024-01-02 00:00:00")
    assert loaded_after(upstream, newest_load(None)).count() == 2
    assert loaded_after(upstream, newest_load(upstream.limit(0))).count() == 2


def _files_scanned(frame: DataFrame) -> list[int]:
    """How many files each file scan of the (executed) frame read, from Spark's scan metrics;
    none when Spark found nothing to read. Adaptive plans are read through their final plan."""
    scanned = []
    plans = [frame._jdf.queryExecution().executedPlan()]
    while plans:
        plan = plans.pop()
        if plan.nodeName().startswith("Scan "):
            scanned.append(plan.metrics().apply("numFiles").value())
        elif plan.nodeName() == "AdaptiveSparkPlan":
            plans.append(plan.finalPhysicalPlan())
        elif plan.nodeName().endswith("QueryStage"):
            plans.append(plan.plan())
        children = plan.children().iterator()
        while children.hasNext():
            plans.append(children.next())
    return scanned


def test_files_not_loaded_reads_only_files_modified_since_the_oldest_not_loaded(
    spark: SparkSession, tmp_path: Path
) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    # In modification-time order: a loaded file, a new one, a loaded one, a new one.
    for minute, name in enumerate(("loaded-1.txt", "new-1.txt", "loaded-2.txt", "new-2.txt")):
        path = landing / name
        path.write_text(name + "\n")
        modified = datetime(2024, 1, 1, 0, minute).timestamp()
        os.utime(path, (modified, modified))

    def files() -> DataFrame:
        return spark.read.text(str(landing)).select(
            "value",
            F.col("_metadata.file_path").alias("file_path"),
            F.col("_metadata.file_modification_time").alias("landed_at"),
        )

    loaded = files().where(F.col("value").startswith("loaded"))
    new = files_not_loaded(files(), loaded)
    assert sorted(row.value for row in new.collect()) == ["new-1.txt", "new-2.txt"]
    # Both sides of the join skip loaded-1.txt, older than every new file, unread.
    assert _files_scanned(new) == [3, 3]
    nothing_new = files_not_loaded(files(), files())
    assert nothing_new.collect() == []
    assert _files_scanned(nothing_new) == []
    assert files_not_loaded(files(), None).count() == 4


def test_load_time_is_one_time_per_query(spark: SparkSession) -> None:
    stamped = spark.range(1000).repartition(4).select(load_time().alias("loaded_at"))
    assert stamped.select(F.countDistinct("loaded_at")).first()[0] == 1
