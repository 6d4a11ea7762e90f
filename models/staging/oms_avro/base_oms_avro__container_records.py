from cdc_lakehouse.avro.container import landed_container_records
from cdc_lakehouse.avro.oms import record_schema


def model(dbt, session):
    dbt.config(materialized="table")
    return landed_container_records(session, dbt.config.get("landing_folder"), record_schema())
