from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.dts import record_schema


def model(dbt, session):
    dbt.config(materialized="table")
    return landed_container_records(dbt.source("dts_avro", "landed_container_files"), record_schema())
