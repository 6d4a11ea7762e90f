from pyspark.sql import functions as F

from cdc_lakehouse.avro.oms import decode_messages
from cdc_lakehouse.incremental import files_not_loaded, load_time, loaded_after


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number", "message_index"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    records = loaded_after(dbt.ref("base_oms_avro__container_records"), loaded).drop("loaded_at")
    landed = dbt.source("oms_avro", "landed_lines").unionByName(records)
    # Only whole new files: a shard set with pieces in an already loaded file stays rejected as
    # incomplete_shards until a --full-refresh (README, incremental runs).
    landed = files_not_loaded(landed, F.col("file_path"), loaded)
    return decode_messages(landed).withColumn("loaded_at", load_time())
