from pyspark.sql import functions as F

from cdc_lakehouse.avro.dts import decode_messages
from cdc_lakehouse.incremental import files_not_loaded, load_time, loaded_after


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number", "message_index"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    landed = dbt.source("dts_avro", "landed_lines").select("file_path", "line_number", "payload", "landed_at")
    records = loaded_after(dbt.ref("base_dts_avro__container_records"), loaded).drop("loaded_at")
    landed = files_not_loaded(landed.unionByName(records), F.col("file_path"), loaded)
    return decode_messages(landed).withColumn("loaded_at", load_time())
