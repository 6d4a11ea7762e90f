from pyspark.sql import functions as F

from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.dts import record_schema
from cdc_lakehouse.incremental import files_not_loaded, load_time


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    files = files_not_loaded(dbt.source("dts_avro", "landed_container_files"), F.col("file_path"), loaded)
    return landed_container_records(files, record_schema()).withColumn("loaded_at", load_time())
