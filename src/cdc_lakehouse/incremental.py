"""Incremental loads for Python models, by the rules of macros/incremental/incremental_loads.sql:
a base model loads only the files it has not loaded yet and stamps its rows with `loaded_at`;
every later model takes the upstream rows loaded after the newest it holds."""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

LOADED_AT = "loaded_at"


def load_time() -> Column:
    """When a row was loaded: Spark's clock, as the SQL models' `load_time()`."""
    return F.current_timestamp()


def loaded_after(rows: DataFrame, loaded: DataFrame | None, column: str = LOADED_AT) -> DataFrame:
    """The `rows` loaded after the newest row of `loaded` (this model's table in an incremental
    run, None otherwise). The newest time is inlined as a literal so Parquet skips older row groups."""
    if loaded is None:
        return rows
    newest = loaded.agg(F.unix_micros(F.max(column))).first()[0]
    if newest is None:
        return rows
    return rows.where(F.col(column) > F.timestamp_micros(F.lit(newest)))


def files_not_loaded(lines: DataFrame, file_path: Column, loaded: DataFrame | None) -> DataFrame:
    """The `lines` of files not in `loaded` (this model's table in an incremental run, None
    otherwise). `file_path` is the lines' file, e.g. `F.col("_metadata.file_path")` on a file
    reader: the loaded paths are inlined as literals, so Spark does not even read those files."""
    if loaded is None:
        return lines
    paths = [row[0] for row in loaded.select("file_path").distinct().collect()]
    return lines.where(~file_path.isin(paths)) if paths else lines
