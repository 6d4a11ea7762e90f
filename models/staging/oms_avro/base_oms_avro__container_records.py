from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.oms import record_schema


def model(dbt, session):
    dbt.config(materialized="table")
    return landed_container_records(dbt.source("oms_avro", "landed_container_files"), record_schema())
