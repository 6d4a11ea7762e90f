from cdc_lakehouse.avro.container import new_container_records


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key=["file_path", "line_number"])
    loaded = session.table(str(dbt.this)) if dbt.is_incremental else None
    return new_container_records(dbt.source("debezium_avro", "landed_container_files"), loaded, "debezium_avro")
