from cdc_lakehouse.avro.oms import binary_values
from cdc_lakehouse.incremental import load_time, loaded_after


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    records = loaded_after(dbt.ref("base_oms_avro__records"), loaded)
    return binary_values(records).withColumn("loaded_at", load_time())
