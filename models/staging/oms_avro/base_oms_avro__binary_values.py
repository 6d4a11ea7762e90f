from cdc_lakehouse.avro.oms import binary_values
from cdc_lakehouse.incremental import load_time, loaded_after, newest_load


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number"])
    newest = newest_load(session.table(str(dbt.this)) if dbt.is_incremental else None)
    records = loaded_after(dbt.ref("base_oms_avro__records"), newest)
    return binary_values(records).withColumn("loaded_at", load_time())
