"""Incremental loads for Python models, by the rules of macros/incremental/incremental_loads.sql:
a base model loads only the files it has not loaded yet and stamps its rows with `loaded_at`;
every later model takes the upstream rows loaded after the newest it holds."""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

LOADED_AT = "loaded_at"


def load_time() -> Column:
    """When a row was loaded: Spark's clock, as the SQL models' `load_time()`."""
    return F.current_timestamp()


def newest_load(loaded: DataFrame | None, column: str = LOADED_AT) -> int | None:
    """Unix microseconds of the newest row of `loaded` (this model's table in an incremental run,
    None otherwise); None when it has none. Asked once, however many inputs `loaded_after` filters."""
    if loaded is None:
        return None
    return loaded.agg(F.unix_micros(F.max(column))).first()[0]


def loaded_after(rows: DataFrame, newest: int | None, column: str = LOADED_AT) -> DataFrame:
    """The `rows` loaded after `newest` (`newest_load`; all of them when None). The time is inlined
    as a literal so Parquet skips older row groups."""
    if newest is None:
        return rows
    return rows.where(F.col(column) > F.timestamp_micros(F.lit(newest)))


def files_not_loaded(files: DataFrame, loaded: DataFrame | None) -> DataFrame:
    """The landed `files` (file_path, landed_at: its modification time, and more) whose paths
    `loaded` (this model's table in an incremental run, None otherwise) does not hold. Only files
    modified since the oldest one not loaded are read: that time is inlined as a literal, so the
    file source skips older files unread; the loaded ones among the rest are left out by a join.
    The cost follows the new files, as long as files land in modification-time order."""
    if loaded is None:
        return files
    loaded_paths = loaded.select("file_path").distinct()
    oldest = files.join(loaded_paths, "file_path", "left_anti").agg(F.unix_micros(F.min("landed_at"))).first()[0]
    if oldest is None:
        return files.where(F.lit(False))
    since = F.col("landed_at") >= F.timestamp_micros(F.lit(oldest))
    return files.where(since).join(loaded.where(since).select("file_path").distinct(), "file_path", "left_anti")
