from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.oms import record_schema
from cdc_lakehouse.incremental import load_time


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    folder = dbt.config.get("landing_root").rstrip("/") + "/oms_avro"
    records = landed_container_records(session, folder, record_schema(), loaded)
    return records.withColumn("loaded_at", load_time())
