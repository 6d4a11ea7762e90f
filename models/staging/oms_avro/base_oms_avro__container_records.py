from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.oms import record_schema


def model(dbt, session):
    dbt.config(materialized="table")
    folder = dbt.config.get("landing_root").rstrip("/") + "/oms_avro"
    return landed_container_records(session, folder, record_schema())
