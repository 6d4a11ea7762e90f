from cdc_lakehouse.avro.oms import decode_messages


def model(dbt, session):
    dbt.config(materialized="table")
    landed = dbt.source("oms_avro", "landed_lines").unionByName(
        dbt.ref("base_oms_avro__container_records")
    )
    return decode_messages(landed)
